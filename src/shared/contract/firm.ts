import { z } from 'zod';
import { CaseId, Empty } from './common';
import { op } from './op';

/** A firm account's name: letters, digits, `.`, `_`, `-` or `@`, compared without regard to case. */
export const UserName = z
  .string({ error: 'Give the user name as text.' })
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9][a-z0-9._@-]{0,63}$/,
    'A user name holds only letters, digits, ".", "_", "-" or "@" (at most 64), starting with a letter or digit.',
  );

export const FirmRole = z.enum(['admin', 'reviewer'], { error: 'The role is admin or reviewer.' });
export type FirmRole = z.infer<typeof FirmRole>;

export interface FirmUser {
  name: string;
  role: FirmRole;
  /** ISO timestamp. */
  created: string;
  /** Ids of the cases the user is a member of (an administrator sees every case whatever this says). */
  cases: string[];
}

export interface CaseMembers {
  case_id: string;
  /** User names, sorted. */
  members: string[];
}

const MemberInput = z.object({ case_id: CaseId, user: UserName }).strict();

/** Accounts and matter membership of a firm server (`casefile serve --firm`); an administrator's operations. */
export const firmContract = {
  'firm.users.list': op<{ users: FirmUser[] }>()(Empty, 'The firm server’s accounts with their roles and cases.'),
  'firm.users.add': op<FirmUser>()(
    z
      .object({
        name: UserName,
        password: z
          .string({ error: 'password is required' })
          .min(10, 'A password has at least 10 characters.')
          .max(1024, 'That password is too long (at most 1,024 characters).'),
        role: FirmRole.default('reviewer'),
      })
      .strict(),
    'Create an account on the firm server (a reviewer unless role is admin).',
  ),
  'firm.users.remove': op<{ name: string; removed: true }>()(
    z.object({ name: UserName }).strict(),
    'Remove an account: its sessions end and it leaves every case.',
  ),
  'firm.members.list': op<CaseMembers>()(z.object({ case_id: CaseId }).strict(), 'The members of a case.'),
  'firm.members.add': op<CaseMembers>()(MemberInput, 'Make a user a member of a case: they may see it.'),
  'firm.members.remove': op<CaseMembers>()(MemberInput, 'Take a user off a case: they no longer see it.'),
};

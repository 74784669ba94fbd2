import type { Engine } from '../../core/engine';
import { writeUserFile } from '../../core/util/fs';
import { printable, UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

/** `--format md|docx` (default md). */
function exportFormat(raw: unknown): 'md' | 'docx' {
  if (raw === undefined) return 'md';
  if (raw === 'md' || raw === 'docx') return raw;
  throw new UsageError(`--format must be md or docx (got "${String(raw)}")`);
}

/**
 * `casefile chat <case> export <session> [--format md|docx] [--turn TURN] [--out FILE]`: Markdown
 * to stdout or FILE (written exactly); Word only to FILE.
 */
async function exportCommand(
  engine: Engine,
  caseId: string,
  sessionId: string,
  args: Parsed,
  io: CliIO,
): Promise<number> {
  const format = exportFormat(args.values.format);
  const turnId = typeof args.values.turn === 'string' ? args.values.turn : undefined;
  const out = typeof args.values.out === 'string' ? args.values.out : undefined;
  if (format === 'docx' && !out) throw new UsageError('chat export --format docx writes a Word file: add --out FILE');
  const r = await engine.router.call('chat.export', {
    case_id: caseId,
    session_id: sessionId,
    ...(format === 'docx' ? { format } : {}),
    ...(turnId ? { turn_id: turnId } : {}),
  });
  // Atomic: a failure or a kill mid-write keeps the previous export whole.
  if (format === 'docx') await writeUserFile(out!, Buffer.from(r.docx_base64 ?? '', 'base64'));
  else if (out) await writeUserFile(out, r.markdown);
  else io.out(r.markdown);
  return 0;
}

/** `casefile chat <case> list | show <session> | export <session> [--format md|docx] [--turn TURN] [--out FILE] | rename <session> <title> | delete <session> --yes` */
export async function chatCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  const [caseRef, sub, sessionId, ...rest] = args.positionals;
  if (!caseRef || !sub) throw new UsageError('chat takes <case> list|show|export|rename|delete');
  const target = await engine.cases.resolve(caseRef);
  const json = args.values.json === true;
  const need = () => {
    if (!sessionId) throw new UsageError(`chat ${sub} takes a <session> id`);
    return sessionId;
  };
  switch (sub) {
    case 'list': {
      const { sessions } = await engine.router.call('chat.sessions', { case_id: target.id });
      if (json) io.out(wireJson({ sessions }));
      else if (!sessions.length)
        io.out('No chat sessions in this case yet. Ask with: casefile ask <case> "<question>"');
      else
        for (const s of sessions)
          io.out(`${s.id}  ${s.updated.slice(0, 16).replace('T', ' ')}  ${s.messages} messages  ${printable(s.title)}`);
      return 0;
    }
    case 'show': {
      const s = await engine.router.call('chat.session', { case_id: target.id, session_id: need() });
      if (json) io.out(wireJson(s));
      else
        for (const m of s.messages_list)
          io.out(
            `${m.role === 'user' ? 'Q' : 'A'}: ${m.content}${m.status && m.status !== 'done' ? ` (${m.status})` : ''}`,
          );
      return 0;
    }
    case 'export':
      return exportCommand(engine, target.id, need(), args, io);
    case 'rename': {
      if (!rest.length) throw new UsageError('chat rename takes <session> <title>');
      const s = await engine.router.call('chat.rename', {
        case_id: target.id,
        session_id: need(),
        title: rest.join(' '),
      });
      io.out(json ? wireJson(s) : `Renamed ${s.id} to "${printable(s.title)}"`);
      return 0;
    }
    case 'delete': {
      if (args.values.yes !== true)
        throw new UsageError('deleting a chat session removes it for good; add --yes to confirm');
      await engine.router.call('chat.delete', { case_id: target.id, session_id: need() });
      io.out(json ? wireJson({ id: sessionId, deleted: true }) : `Deleted chat session ${sessionId}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown chat command "${sub}"`);
  }
}

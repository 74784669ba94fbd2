/**
 * The messages of an email document for the chronology: the email itself and each earlier message
 * quoted under it ("On Mon, Mar 11, 2019 at 4:02 PM Rex Moore <rex@acme.com> wrote:", or Outlook's
 * "From: … Sent: … To: … Subject: …" block). Each is an event of the day it was sent, told by its
 * first words after the greeting and led by its sender.
 */

export interface EmailMessage {
  /** Where its header begins and ends in the body: the header's sentences are no rows. */
  headStart: number;
  headEnd: number;
  /** The sentence that opens it (after the greeting and any pleasantry), or -1. */
  index: number;
  sent: { date: string; precision: 'day'; date_text: string };
  sender: string;
}

/** An email's header as the reader writes it: "From: …", "To: …", "Date: 2019-12-02 15:04 UTC", "Subject: …", then a blank line. */
const EMAIL_HEAD =
  /^From:[ \t]*([^\n<]*?)\s*(?:<[^>\n]*>)?[ \t]*\n(?:(?:To|Cc|Sent|Date|Subject):[^\n]*\n)*?Date:[ \t]*([^\n]+)\n(?:(?:To|Cc|Subject):[^\n]*\n)*\n/;
/** A quoted reply's attribution: "On Mon, Mar 11, 2019 at 4:02 PM Rex Moore <rex@acme.com> wrote:". */
const REPLY_HEAD = /^[ \t]*On\s+([^\n]{6,160}?)\s+wrote:[ \t]*$/gm;
/** A forwarded or quoted message's block in Outlook's way: "From: Rex Moore", "Sent: Monday, March 11, 2019 4:02 PM", "To: …", "Subject: …". */
const QUOTED_HEAD =
  /^[ \t]*(?:-{2,}[ \t]*(?:Original Message|Forwarded message)[ \t]*-{2,}[ \t]*\n)?[ \t]*From:[ \t]*([^\n<]*?)[ \t]*(?:<[^>\n]*>)?[ \t]*\n(?:[ \t]*(?:To|Cc|Subject):[^\n]*\n)*?[ \t]*(?:Sent|Date):[ \t]*([^\n]+)\n(?:[ \t]*(?:To|Cc|Subject):[^\n]*(?:\n|$))*/gm;
/** A letter's or email's greeting line: "Mark,", "Dear Ms. Ortiz:", "Hi all,". */
const SALUTATION = /^(?:(?:Dear|Hi|Hello|Good (?:morning|afternoon))\b.{0,40}|[A-Z][\w .'’-]{0,40})[,:]$/;
/** Words of courtesy that tell nothing: "Thanks.", "Thank you for your email.", "Hope you are well." */
const PLEASANTRY =
  /^(?:thanks?(?:\s+you)?(?:\s+(?:again|so much|very much|for\s+(?:your|the)\s+(?:email|e-mail|message|note|reply|response)))?|(?:I\s+)?hope\s+(?:you|this|all)\b[^.!]{0,40})[.!]?$/i;

/**
 * The messages of `body` when it is an email (it opens with the reader's header and the document
 * has a date): the email, then each quoted message whose date `dateOf` reads. [] otherwise.
 */
export function emailMessages(
  body: string,
  spans: readonly [number, number][],
  docDate: string,
  dateOf: (words: string) => { date: string; date_text: string; end: number } | null,
): EmailMessage[] {
  const head = docDate ? EMAIL_HEAD.exec(body) : null;
  if (!head) return [];
  const first = head[0].length;
  const out: EmailMessage[] = [
    {
      headStart: 0,
      headEnd: first,
      index: -1,
      sent: { date: docDate, precision: 'day', date_text: head[2]!.trim() },
      sender: head[1]!.trim() || 'Email',
    },
  ];
  const quoted = [
    ...[...body.matchAll(REPLY_HEAD)].map((m) => ({ m, words: m[1]!, sender: '' })),
    ...[...body.matchAll(QUOTED_HEAD)].map((m) => ({ m, words: m[2]!, sender: m[1]!.trim() })),
  ]
    .filter(({ m }) => m.index >= first)
    .sort((x, y) => x.m.index - y.m.index);
  for (const { m, words, sender } of quoted) {
    const when = dateOf(words);
    if (!when) continue;
    const headEnd = m.index + m[0].length;
    // "Mon, Mar 11, 2019 at 4:02 PM Rex Moore <rex@acme.com>": the sender is what follows the date.
    const name =
      sender ||
      words
        .slice(when.end)
        .replace(/<[^>]*>/g, '')
        .replace(/^[\s,]+|[\s,]+$/g, '');
    out.push({
      headStart: m.index,
      headEnd,
      index: -1,
      sent: { date: when.date, precision: 'day', date_text: when.date_text },
      sender: name || 'Email',
    });
  }
  // Each message's opening lies between its header and the next message's.
  for (const [k, message] of out.entries()) {
    const end = out[k + 1]?.headStart ?? body.length;
    message.index = spans.findIndex(([a, b]) => {
      const s = body.slice(a, b).replace(/\s+/g, ' ').trim();
      return a >= message.headEnd && a < end && !SALUTATION.test(s) && !PLEASANTRY.test(s);
    });
  }
  return out;
}

/** The message a sentence starting at `offset` belongs to: the last whose header begins at or before it. */
export function messageAt(messages: readonly EmailMessage[], offset: number): EmailMessage | undefined {
  return messages.findLast((m) => m.headStart <= offset);
}

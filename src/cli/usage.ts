export const USAGE = `Usage:
  casefile [--home DIR] cases list [--json]
  casefile [--home DIR] cases create <name> [--json]
  casefile [--home DIR] cases rename <case> <new-name>
  casefile [--home DIR] cases delete <case> --yes
  casefile [--home DIR] cases ocr <case> [on|off] [--language CODE] [--json]   # read scanned pages and images by OCR (on by default)
  casefile [--home DIR] cases dates <case> [day-first|month-first] [--json]   # how numeric dates (03/04/2020) are read; by default as the locale writes dates
  casefile [--home DIR] cases export <case> --out FILE.casefile [--passphrase-stdin] [--json]   # the whole case as one file (originals, index, chats, marks)
  casefile [--home DIR] cases import FILE.casefile [--passphrase-stdin] [--json]   # a case already here is kept as an earlier version
  casefile [--home DIR] ingest <case> <path...> [--searchable] [--json]   # --searchable: return once searchable by words (vectors next run)
  casefile [--home DIR] retry <case> <file> [--json]        # read a failed or set-aside file again
  casefile [--home DIR] unlock <case> <file> [--password-file FILE] [--json]   # open a password-protected PDF (asks for the password)
  casefile [--home DIR] files <case> [--json]
  casefile [--home DIR] outline <case> <file> [--section ID|NUMBER|TITLE] [--json]   # a document's headings, or one section
  casefile [--home DIR] bates <case> <file> <PREFIX>|--none [--json]   # the Bates prefix a document is stamped with, or none
  casefile [--home DIR] chronology <case> [--from D] [--to D] [--query Q] [--person P] [--file NAME] [--json|--csv|--docx FILE]   # dated events, in order
  casefile [--home DIR] search <case> <query> [--mode hybrid|keyword|vector] [--k N] [--focus auto|off] [--json]
  casefile [--home DIR] reindex <case> [--all] [--json]     # upgrade the index to the current chunking from stored text; make waiting passages searchable by meaning
  casefile [--home DIR] ask <case> <question> [--extractive] [--model ID|PATH] [--max-steps N] [--top-k N] [--threshold X] [--file NAME]... [--session ID] [--json]
  casefile [--home DIR] ask --any-case <question> [--extractive] [--model ID|PATH] [--json]   # finds the case the question means
  casefile [--home DIR] chat <case> list|show <session>|rename <session> <title>|delete <session> --yes
  casefile [--home DIR] chat <case> export <session> [--format md|docx] [--turn TURN] [--out FILE]   # docx needs --out
  casefile [--home DIR] models list [--json]
  casefile [--home DIR] models import <path> [--id ID] [--link] [--json]
  casefile [--home DIR] models default <id> [--json]   # an embedding model: for new cases; a chat model: for questions that name none
  casefile [--home DIR] models download <url|owner/repo[/file.gguf]>
  casefile [--home DIR] watch <case> [<folder>...] [--on|--off] [--json]   # follow the case's folders until Ctrl+C: new and changed files are added, deleted ones marked
  casefile [--home DIR] serve [--port N] [--host 127.0.0.1] [--allow-remote] [--allow-path DIR]... [--allow-downloads-from HOST]... [--allow-scripted-models] [--audit] [--trust-proxy ADDR]...
  casefile [--home DIR] serve --firm [--tls-cert FILE --tls-key FILE] [--session-idle MINUTES] [--session-max HOURS] [serve options]   # people sign in; walls between cases
  casefile [--home DIR] firm user add <name> [--admin] [--password-file FILE] [--json]   # asks for the password (or reads it piped in)
  casefile [--home DIR] firm user list|remove <name> [--json]
  casefile [--home DIR] firm members list <case> | add|remove <case> <user> [--json]
  casefile [--home DIR] audit check [--json]   # verify the audit trail's chain: exit 0 intact, 1 broken (with the reason)
  casefile [--home DIR] audit export [--case <case>] [--from DATE] [--to DATE] --out FILE.csv   # the trail as CSV (dates UTC, inclusive)

search focuses on the documents a question names (a party, a title, a contract type, a file
name) and says so; --focus off searches the whole case.

OCR reads scanned pages and images of files added from then on (retry a file to read it
again); CASEFILE_OCR=0 turns it off everywhere.

<case> is a case id or a unique case name. The data folder is --home, else $CASEFILE_HOME,
else the desktop app's own data folder.

serve reads only files uploaded through its page, plus folders named with --allow-path
(repeatable). It downloads models only from hosts named with --allow-downloads-from (repeatable:
huggingface.co, 127.0.0.1:8080, *.hf.co); without it, downloads are off.
--allow-scripted-models lets requests pick scripted: test models (tests only). --audit records
every request (who, when, from where, which case, what) in <home>/audit; a firm server always does.
Behind a reverse proxy, --trust-proxy ADDR (its IP address, repeatable) takes a request from it as
from the client its X-Forwarded-For header names, for the sign-in throttle and the audit trail.

serve --firm: each person signs in with an account made by \`casefile firm user add\`; a reviewer
sees only the cases they are a member of (\`casefile firm members add\`). Beyond loopback it needs
--allow-remote and TLS (--tls-cert, --tls-key). Sessions outlast a restart of the server (kept in
<home>/firm/sessions.json, as hashes). See docs/firm-server.md.`;

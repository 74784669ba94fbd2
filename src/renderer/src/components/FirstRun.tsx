/**
 * What the app shows where there is nothing yet: on the first run, what to do (drop a case folder,
 * import a model, with the recommended models and the memory they need); with cases but none
 * chosen, how to pick or start one, and a question box that finds the case a question means. Rendered by Workspace when no case is selected.
 */
import { readFileTypesText } from '../../../shared/file-types';
import { useSession } from '../stores/session';
import { useUi } from '../stores/ui';
import { shortcut } from '../lib/display-format';
import { AskAnyCase } from './AskAnyCase';
import { ModelImport, RecommendedModels, useModelsList } from './Models';
import '../styles/settings.css';

function NewCaseButton() {
  const openDialog = useUi((s) => s.openDialog);
  return (
    <button type="button" className="btn btn-primary" onClick={() => openDialog({ kind: 'create' })}>
      New case <kbd>{shortcut('N')}</kbd>
    </button>
  );
}

function ModelStep() {
  const { list, reload } = useModelsList();
  if (!list) return null;
  const chat = list.models.find((m) => m.kind === 'chat' && m.id === list.default_chat_model);
  const ready = chat && !chat.too_small;
  return (
    <section className="first-run-step" aria-labelledby="first-run-model">
      <h2 id="first-run-model">2. Import a model to get written answers</h2>
      <p className="small" data-testid="first-run-search">
        {list.semantic.available
          ? `Search by meaning is on (${list.default_embedding_model}): questions find passages that say the same thing in other words.`
          : `Search finds passages by their words only: ${list.semantic.reason ?? 'no search-by-meaning model is installed'}.`}
      </p>
      {ready ? (
        <p>
          Ready: questions are answered by <strong>{chat.id}</strong>. You can change models in Settings.
        </p>
      ) : (
        <>
          <p className="muted small">
            {chat
              ? `${chat.id} is too small to write answers worth waiting for, so questions get the passages that match, quoted and cited. A chat model of about 1.5 billion parameters or more writes an answer and cites each sentence.`
              : 'Without a model, Casefile answers with the passages that match, quoted and cited. With a chat model it writes an answer and cites each sentence.'}{' '}
            Models run on this computer; choose a file you were given (or downloaded) to import it.
          </p>
          <ModelImport onImported={() => void reload()} />
          {list.recommended.some((m) => m.recommended) && <p className="small">Recommended:</p>}
          <RecommendedModels models={list.recommended} only="recommended" compact />
        </>
      )}
    </section>
  );
}

export function FirstRun({ hasCases }: { hasCases: boolean }) {
  // A firm server's reviewer neither creates cases nor installs models: an administrator does.
  const reviewer = useSession((s) => s.info?.user?.role === 'reviewer');
  if (reviewer) {
    return (
      <section className="empty-state">
        <h1>{hasCases ? 'Choose a case' : 'No cases yet'}</h1>
        <p>
          {hasCases
            ? 'Pick a case on the left.'
            : 'No case is shared with you yet. Ask an administrator of this server to add you to a case.'}
        </p>
        {hasCases && <AskAnyCase />}
      </section>
    );
  }
  if (hasCases) {
    return (
      <section className="empty-state">
        <h1>Choose a case</h1>
        <p>Pick a case on the left, or create a new one. You can also drop a folder here to start a case from it.</p>
        <NewCaseButton />
        <AskAnyCase />
      </section>
    );
  }
  return (
    <section className="first-run" aria-label="Getting started">
      <header>
        <h1>Welcome to Casefile</h1>
        <p>
          Casefile reads a case’s documents on this computer and answers questions with citations to the exact words on
          the page. Nothing leaves this computer.
        </p>
      </header>
      <div className="first-run-steps">
        <section className="first-run-step" aria-labelledby="first-run-case">
          <h2 id="first-run-case">1. Start a case from its folder</h2>
          <div className="first-run-drop">
            Drop a case folder here — anywhere on this window — and Casefile makes a case from it and reads every
            document.
          </div>
          <p className="muted small">It reads {readFileTypesText()}.</p>
          <p className="muted small">Or create an empty case and add files and folders to it.</p>
          <NewCaseButton />
        </section>
        <ModelStep />
      </div>
      <p className="muted small">
        Then ask a question in the case’s chat, and click a citation to see the words on the page.
      </p>
    </section>
  );
}

import { useState } from 'react';
import type { AgentStep } from '../../../shared/contract/chat';
import { collapseSteps, describePolicy, formatSeconds, type StepLine } from '../../../shared/steps';
import { withoutCites } from '../lib/citations';

/** What the model is writing in the step being generated: its thought, then the answer it drafts. */
export interface LiveLine {
  step: number;
  thought: string;
  draft: string;
}

/** The raw step behind a line: tool name, thought, input, policy note and observation (for the curious). */
function StepRaw({ step }: { step: AgentStep }) {
  const input = Object.keys(step.input ?? {}).length ? JSON.stringify(step.input) : '';
  return (
    <div className="step-raw" data-step={step.index}>
      <div className="small">
        <span className="step-label">Step {step.index}</span>{' '}
        <span className="step-action">{step.kind === 'final' ? 'final answer' : step.action}</span>
        <span className="muted small">
          {' '}
          · model {formatSeconds(step.timing.model_ms)} · tool {formatSeconds(step.timing.tool_ms)} ·{' '}
          {step.tokens.input} tokens in, {step.tokens.output} out
        </span>
      </div>
      {step.thought && (
        <div className="step-thought">
          <span className="step-label">Thought</span> {step.thought}
        </div>
      )}
      {input && step.kind !== 'final' && (
        <div className="step-input mono small">
          <span className="step-label">Input</span> {input}
          {step.defaults?.length ? (
            <span
              className="muted step-defaults"
              title="The agent did not set these itself; they come from Settings → Search and answers."
            >
              {' '}
              (from Settings: {step.defaults.join(', ')})
            </span>
          ) : null}
        </div>
      )}
      {step.policy && (
        <div className="small muted">
          <span className="step-label">Rule</span> {step.policy}
        </div>
      )}
      {step.observation && (
        <div className="step-observation">
          <span className="step-label">What the tool returned</span>
          <pre className="small">
            {step.observation.length > 2000 ? `${step.observation.slice(0, 2000)}…` : step.observation}
          </pre>
        </div>
      )}
    </div>
  );
}

function LineItem({ line, stream }: { line: StepLine; stream?: string }) {
  const first = line.steps[0]!;
  const policies = [...new Set(line.steps.map((s) => describePolicy(s.policy)).filter((p): p is string => p !== null))];
  const error = line.steps.some((s) => s.error);
  const running = first.kind === 'action' && !first.observation && !first.summary && !first.error;
  const model = line.steps.reduce((t, s) => t + s.timing.model_ms, 0);
  const tool = line.steps.reduce((t, s) => t + s.timing.tool_ms, 0);
  return (
    <li
      className={`step${error ? ' step-error' : ''}${running ? ' step-running' : ''}`}
      data-step={first.index}
      data-count={line.count}
    >
      <div className="step-head">
        <span className="step-n" aria-hidden="true">
          {first.index}
        </span>
        <span className="step-text">{line.text}</span>
        {!running && (
          <span
            className="muted small step-time"
            title={`Model ${formatSeconds(model)}, search and reading ${formatSeconds(tool)}`}
          >
            {formatSeconds(line.ms)}
          </span>
        )}
      </div>
      {running && stream && <div className="step-stream step-thought">{stream}</div>}
      {policies.map((p) => (
        <div key={p} className="small notice step-policy">
          {p}
        </div>
      ))}
      <details className="step-details">
        <summary className="small">Details</summary>
        {line.steps.map((s) => (
          <StepRaw key={s.index} step={s} />
        ))}
      </details>
    </li>
  );
}

/** The model's words as they stream, on the timeline's current step (never in the answer slot). */
function LiveItem({ live }: { live: LiveLine }) {
  const draft = withoutCites(live.draft);
  return (
    <li className="step step-live" data-testid="live-line" data-step={live.step}>
      <div className="step-head">
        <span className="step-n" aria-hidden="true">
          {live.step}
        </span>
        <span className="step-text">{draft ? 'Writing the answer…' : 'Thinking…'}</span>
      </div>
      {live.thought && <div className="step-stream step-thought">{live.thought}</div>}
      {draft && <div className="step-stream step-draft">{draft}</div>}
    </li>
  );
}

/**
 * Whether the user opened or closed a turn's timeline, by turn id: the answer just finished is
 * drawn again as the saved message, and a timeline opened in between must stay open.
 */
const openTimelines = new Map<string, boolean>();

/** The turn's steps in plain words; repeats folded; each step's raw record behind its "Details". */
export function Timeline({
  steps,
  live,
  defaultOpen,
  limitedTo,
  keptFocus,
  turnId,
}: {
  steps: AgentStep[];
  live?: LiveLine | null;
  defaultOpen?: boolean;
  limitedTo?: string | undefined;
  /** A follow-up searched in the documents the earlier question was about: the line that says so. */
  keptFocus?: string | undefined;
  turnId?: string | undefined;
}) {
  const [open, setOpen] = useState(
    () => (turnId !== undefined ? openTimelines.get(turnId) : undefined) ?? defaultOpen ?? false,
  );
  const lines = collapseSteps(steps);
  // The live line belongs to the step being generated; once that step is recorded it shows its own line.
  const streaming = live && (live.thought || live.draft) && !steps.some((s) => s.index === live.step) ? live : null;
  const total = steps.reduce((t, s) => t + s.timing.model_ms + s.timing.tool_ms, 0);
  return (
    <details
      className="timeline"
      open={open}
      onToggle={(e) => {
        const now = e.currentTarget.open;
        if (turnId !== undefined) openTimelines.set(turnId, now);
        setOpen(now);
      }}
    >
      <summary>
        Timeline · {steps.length} step{steps.length === 1 ? '' : 's'}
        {live ? ' · working…' : steps.length ? ` · ${formatSeconds(total)}` : ''}
      </summary>
      {limitedTo && (
        <p className="small notice timeline-limit" data-testid="timeline-limit">
          {limitedTo}.
        </p>
      )}
      {keptFocus && (
        <p className="small notice timeline-limit" data-testid="timeline-kept-focus">
          {keptFocus}.
        </p>
      )}
      <ol className="steps" aria-label="Agent steps">
        {lines.map((l) => (
          <LineItem
            key={l.steps[0]!.index}
            line={l}
            stream={live && l.steps[0]!.index === live.step ? live.thought : undefined}
          />
        ))}
        {streaming && <LiveItem live={streaming} />}
      </ol>
    </details>
  );
}

import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/** A rendering bug shows a calm message with a way back, never a stack trace or a blank window. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // For developers only (devtools); the user sees the message below.
    console.warn('Casefile view failed:', error.message, info.componentStack?.split('\n')[1]?.trim());
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="empty-state" role="alert">
        <h1>This view could not be shown</h1>
        <p>Your cases and documents are safe. Try again; if it keeps happening, restart Casefile.</p>
        <button type="button" className="btn btn-primary" onClick={() => this.setState({ failed: false })}>
          Try again
        </button>
      </section>
    );
  }
}

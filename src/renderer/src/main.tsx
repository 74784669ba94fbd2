import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SignInGate } from './components/Account';
import { App } from './components/App';
import './styles/app.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <SignInGate>
        <App />
      </SignInGate>
    </StrictMode>,
  );
}

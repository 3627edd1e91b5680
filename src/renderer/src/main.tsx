import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { holdBootComposer } from './app/boot-shell';
import { installLinkGuard } from './features/citations/link-guard';
import './styles.css';
import './app/layout.css';

// SECURITY: no link in the app navigates or opens a tab by itself (see link-guard.ts).
installLinkGuard();

// The shell's question box (index.html), whose text the Composer carries over once React renders.
holdBootComposer();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

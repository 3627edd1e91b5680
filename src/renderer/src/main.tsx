import { StrictMode, startTransition } from 'react';
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
const root = createRoot(document.getElementById('root')!);
// The first render as a transition (issue 31: cold start): React renders the app in slices of a
// few milliseconds and lets the browser handle keys and paint between them, so the shell's box
// keeps taking typing while the app is built; only the commit that swaps it in is one task.
startTransition(() => {
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});

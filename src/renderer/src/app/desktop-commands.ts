/**
 * Acts on commands from the desktop shell: the application menu and validated
 * `clarity-desktop://` links (main validated them; a prefilled question is only put in the
 * composer, never sent). Links that launched the app are fetched once on mount.
 */
import { useEffect } from 'react';
import type { DesktopCommand } from '../../../shared/desktop';
import { clarity } from '../bridge/clarity';
import { useAppStore } from '../store/app-store';
import { viewForCommand } from './view-registry';

export function runDesktopCommand(command: DesktopCommand): void {
  const store = useAppStore.getState();
  switch (command.command) {
    case 'new-conversation':
      store.setView('chat');
      void store.newConversation();
      return;
    case 'open-link': {
      const { link } = command;
      if (link.kind === 'conversation') {
        store.setView('chat');
        void store.openConversation(link.id);
      } else if (link.kind === 'report') {
        store.setView('research');
        store.openReport(link.id);
      } else if (link.kind === 'saved') void store.openSaved(link.id);
      else {
        store.setView('chat');
        store.setDraft(link.question);
      }
      return;
    }
    default: {
      // "Open a view" commands come from the registry.
      const view = viewForCommand(command.command);
      if (view) store.setView(view);
      return;
    }
  }
}

export function useDesktopCommands(): void {
  useEffect(() => {
    const unsubscribe = clarity().onPush('desktop.command', runDesktopCommand);
    void clarity()
      .invoke('desktop.takePendingCommands')
      .then((result) => {
        if (result.ok) result.value.forEach(runDesktopCommand);
      });
    return unsubscribe;
  }, []);
}

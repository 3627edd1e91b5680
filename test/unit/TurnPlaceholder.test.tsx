/**
 * A row whose answer the renderer does not hold (decision 0028): it says it is loading, or, when
 * reading it back failed, that it could not be read, that it is still saved, and offers a retry
 * that asks the slice to read it again (the error cleared: the window reads it on its next pass).
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnPlaceholder } from '../../src/renderer/src/features/chat/TurnPlaceholder';
import { useAppStore, type TurnEntry } from '../../src/renderer/src/store/app-store';

const entry = (extra: Partial<TurnEntry> = {}): TurnEntry => ({ id: 'trn_1', question: 'Where did Zudio open?', status: 'done', answer: null, stored: true, updates: 0, ...extra });

afterEach(() => {
  cleanup();
  useAppStore.setState({ turns: [], activeConversation: null });
});

describe('TurnPlaceholder', () => {
  it('shows a busy placeholder while the answer is read back', () => {
    render(<TurnPlaceholder turn={entry()} />);
    expect(screen.getByTestId('answer-placeholder').getAttribute('aria-busy')).toBe('true');
    expect(screen.queryByTestId('answer-unread')).toBeNull();
  });

  it('a failed read says so, keeps the answer saved, and the retry clears the error for the next read', () => {
    const failed = entry({ readError: 'That conversation no longer exists.' });
    useAppStore.setState({ turns: [failed] });
    render(<TurnPlaceholder turn={failed} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('could not be read back (That conversation no longer exists.)');
    expect(alert.textContent).toContain('It is still saved.');
    fireEvent.click(screen.getByTestId('answer-reread'));
    expect(useAppStore.getState().turns[0]).toMatchObject({ id: 'trn_1', question: 'Where did Zudio open?', answer: null });
    expect(useAppStore.getState().turns[0]!.readError).toBeUndefined();
  });
});

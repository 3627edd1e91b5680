/**
 * Issue 50, round 9: a question asked in a conversation of 1,000 answers places the new row alone.
 * The list's offsets are kept as prefix sums; an append computes the new rows' offsets from the
 * ones before, instead of reading every row's key and size again (1,001 key reads per append
 * before). What is shown stays right: the rows in view, and the list's height for every row.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualList } from '../../src/renderer/src/app/VirtualList';

// jsdom lays nothing out: the scroller gets a window's height, so the list places rows in it.
const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeEach(() => Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 720 }));
afterEach(() => {
  cleanup();
  if (clientHeight) Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight);
});

const ROW = 700;
let keyReads = 0;
const keyOf = (item: string): string => {
  keyReads += 1;
  return item;
};
const renderRow = (item: string) => <p data-testid="row">{item}</p>;
const list = (items: readonly string[]) => <VirtualList items={items} keyOf={keyOf} estimateHeight={ROW} render={renderRow} testId="list" />;
const turns = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `turn ${from + i}`);
/** The holder's height: every row's place when the last row is not rendered; where the last row starts when it is. */
const listHeight = (): string => (screen.getByTestId('list').firstElementChild as HTMLElement).style.height;
const shown = (): string[] => screen.getAllByTestId('row').map((row) => row.textContent ?? '');

describe('appending to a long list', () => {
  it('places the new row from the rows before it, without reading every row again', () => {
    const first = turns(1, 1000);
    const view = render(list(first));
    expect(shown()).toEqual(turns(1, 6));
    expect(listHeight()).toBe(`${1000 * ROW}px`);

    keyReads = 0;
    const asked = [...first, 'turn 1001'];
    act(() => view.rerender(list(asked)));
    expect(listHeight()).toBe(`${1001 * ROW}px`);
    expect(shown()).toEqual(turns(1, 6));
    // The new row's key and a few lookups of it: not the 1,001 rows (every one was read before).
    expect(keyReads).toBeLessThan(20);

    // A row inserted before the last (the harness's streaming row stays last): placed from there.
    keyReads = 0;
    act(() => view.rerender(list([...first, 'turn 1000b', 'turn 1001'])));
    expect(listHeight()).toBe(`${1002 * ROW}px`);
    expect(keyReads).toBeLessThan(20);
  });

  it('places every row again when the rows before the end changed (another conversation, a row removed)', () => {
    const view = render(list(turns(1, 1000)));
    act(() => view.rerender(list(turns(1, 1001))));
    // Another conversation: nothing in common, every row placed from the start.
    act(() => view.rerender(list(turns(5001, 5003))));
    // (With the last row rendered, the holder ends where it starts: the row's own box makes the rest.)
    expect(listHeight()).toBe(`${2 * ROW}px`);
    expect(shown()).toEqual(turns(5001, 5003));
    // Fewer rows, the first ones the same: the list's height is that of the rows left.
    act(() => view.rerender(list(turns(5001, 5002))));
    expect(listHeight()).toBe(`${1 * ROW}px`);
    expect(shown()).toEqual(turns(5001, 5002));
  });
});

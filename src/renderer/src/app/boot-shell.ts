/**
 * The shell index.html shows before the app's code has loaded and run (issue 31: cold start to a
 * composer that takes input). Its question box (`#boot-composer`) takes typing as soon as the page
 * is painted; React replaces the shell when it first renders into #root, and the Composer carries
 * over what was typed, where the caret was, and an Enter pressed meanwhile (public/boot-shell.js
 * keeps it as `data-ask-wished`), so no keystroke is lost in the handover.
 */
export interface BootDraft {
  text: string;
  selectionStart: number;
  selectionEnd: number;
  askWished: boolean;
}

let bootComposer: HTMLTextAreaElement | null = null;

/** Called before React takes #root over: once it renders, the shell's box is gone from the page. */
export function holdBootComposer(): void {
  bootComposer = document.querySelector<HTMLTextAreaElement>('#boot-composer');
}

/** What was typed in the shell's box before the app took over (once; null when nothing). */
export function takeBootDraft(): BootDraft | null {
  const box = bootComposer;
  bootComposer = null;
  if (!box) return null;
  const askWished = box.dataset.askWished === 'true';
  if (!box.value && !askWished) return null;
  return { text: box.value, selectionStart: box.selectionStart, selectionEnd: box.selectionEnd, askWished };
}

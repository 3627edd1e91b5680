/** Which view is shown, the selected citation, and why settings were opened. */
import type { SliceCreator, UiSlice } from './types';

export const createUiSlice: SliceCreator<UiSlice> = (set) => ({
  view: 'chat',
  selectedCitation: null,
  settingsNotice: null,
  setView: (view, notice = null) => set({ view, settingsNotice: notice }),
  selectCitation: (selection) => set({ selectedCitation: selection }),
});

/** Moving `.clarity` bundles between the page and main as base64. */
import type { ExportResult } from '../../../../shared/bridge-contract';

export function downloadFile(file: ExportResult): string {
  if (!file.base64) return file.savedPath ? `Saved to ${file.savedPath}` : 'Not saved.';
  // The browser host downloads; Electron has already asked where to save.
  const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: file.mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return `Downloaded ${file.filename}`;
}

export function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

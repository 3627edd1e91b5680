import { useState } from 'react';
import type { ExportSource } from '../../../../shared/bridge-contract';
import type { ExportFormat } from '../../../../shared/library';
import { clarity } from '../../bridge/clarity';

const FORMATS: Array<{ format: ExportFormat; label: string }> = [
  { format: 'markdown', label: 'Markdown (.md)' },
  { format: 'html', label: 'HTML page (.html)' },
  { format: 'pdf', label: 'PDF (.pdf)' },
  { format: 'docx', label: 'Word (.docx)' },
  { format: 'json', label: 'JSON (.json)' },
  { format: 'csv', label: 'Citations (.csv)' },
];

const decode = (base64: string): Uint8Array => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

/** Exports one answer, a conversation, a report or a saved item, keeping every citation. */
export function ExportMenu({ source, label = 'Export' }: { source: ExportSource; label?: string }) {
  const [status, setStatus] = useState<string | null>(null);

  const download = async (format: ExportFormat): Promise<void> => {
    setStatus('Exporting…');
    const result = await clarity().invoke('export.render', { source, format });
    if (!result.ok) {
      setStatus(result.error.message);
      return;
    }
    const file = result.value;
    if (file.base64) {
      // The browser host downloads; Electron has already asked where to save.
      const url = URL.createObjectURL(new Blob([decode(file.base64) as BlobPart], { type: file.mime }));
      const link = document.createElement('a');
      link.href = url;
      link.download = file.filename;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setStatus(`Downloaded ${file.filename}`);
    } else setStatus(file.savedPath ? `Saved to ${file.savedPath}` : 'Not saved.');
  };

  const copy = async (): Promise<void> => {
    const [html, text] = await Promise.all([clarity().invoke('export.render', { source, format: 'html' }), clarity().invoke('export.render', { source, format: 'text' })]);
    if (!html.ok || !text.ok || !html.value.base64 || !text.value.base64) {
      setStatus(!html.ok ? html.error.message : !text.ok ? text.error.message : 'Copy is not available here.');
      return;
    }
    const htmlBlob = new Blob([decode(html.value.base64) as BlobPart], { type: 'text/html' });
    const textBlob = new Blob([decode(text.value.base64) as BlobPart], { type: 'text/plain' });
    try {
      await navigator.clipboard.write([new ClipboardItem({ 'text/html': htmlBlob, 'text/plain': textBlob })]);
      setStatus('Copied as rich text (with a plain-text version).');
    } catch {
      setStatus('Copy failed: the clipboard is not available.');
    }
  };

  return (
    <span className="export-menu">
      <select
        aria-label={label}
        data-testid="export-format"
        value=""
        onChange={(event) => {
          const value = event.target.value;
          if (value === 'copy') void copy();
          else if (value) void download(value as ExportFormat);
        }}
      >
        <option value="">{label}…</option>
        {FORMATS.map(({ format, label: name }) => (
          <option key={format} value={format}>
            {name}
          </option>
        ))}
        <option value="copy">Copy as rich text</option>
      </select>
      {status ? (
        <span className="hint" role="status" data-testid="export-status">
          {status}
        </span>
      ) : null}
    </span>
  );
}

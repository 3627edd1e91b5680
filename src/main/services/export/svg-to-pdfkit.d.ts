/** svg-to-pdfkit ships no types: the one call the PDF export makes. */
declare module 'svg-to-pdfkit' {
  interface SvgToPdfOptions {
    width?: number;
    height?: number;
    /** Treat the SVG's px as pt (else 1px = 0.75pt). */
    assumePt?: boolean;
    preserveAspectRatio?: string;
    /** The pdfkit font to write a text in, given its SVG font-family. */
    fontCallback?: (family: string, bold: boolean, italic: boolean) => string;
    warningCallback?: (message: string) => void;
  }
  export default function SVGtoPDF(doc: PDFKit.PDFDocument, svg: string, x: number, y: number, options?: SvgToPdfOptions): void;
}

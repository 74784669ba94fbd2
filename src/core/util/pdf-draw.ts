/**
 * Draw one pdf.js page on a canvas (@napi-rs/canvas implements the canvas API pdf.js draws with;
 * pdf.js uses it itself in Node) and encode it as PNG: the source viewer's page images and the
 * page images OCR reads. A page too large to draw at the scale asked is drawn smaller.
 */
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Pixels a drawn page may have at most (a 40-megapixel canvas is 160 MB). */
export const MAX_CANVAS_PIXELS = 40_000_000;

export interface DrawnPage {
  png: Uint8Array;
  width: number;
  height: number;
  /** The scale drawn at: the one asked for, or less for a page too large to draw at it. */
  scale: number;
  viewport: ReturnType<PDFPageProxy['getViewport']>;
}

/** A page drawn on a canvas, before it is encoded. */
export interface DrawnCanvas extends Omit<DrawnPage, 'png'> {
  /** RGBA of `count` rows of the canvas from row `top` (a strip at a time: a whole page's copy is 4 bytes a pixel). */
  rows(top: number, count: number): Uint8ClampedArray;
  png(): Promise<DrawnPage>;
}

/** Draw `page` at `scale`, turned `turn` degrees clockwise (0, 90, 180, 270) beyond its own /Rotate. */
export async function drawPdfPage(page: PDFPageProxy, scale: number, turn = 0): Promise<DrawnPage> {
  return (await drawPdfCanvas(page, scale, turn)).png();
}

/** Draw `page` as drawPdfPage does, and leave it on its canvas: to look at its pixels before encoding it. */
export async function drawPdfCanvas(page: PDFPageProxy, scale: number, turn = 0): Promise<DrawnCanvas> {
  const rotation = (page.rotate + turn) % 360;
  let viewport = page.getViewport({ scale, rotation });
  if (viewport.width * viewport.height > MAX_CANVAS_PIXELS) {
    scale = scale * Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)) * 0.999;
    viewport = page.getViewport({ scale, rotation });
  }
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  type RenderParams = Parameters<typeof page.render>[0];
  await page.render({
    canvas: canvas as unknown as RenderParams['canvas'],
    canvasContext: ctx as unknown as NonNullable<RenderParams['canvasContext']>,
    viewport,
  }).promise;
  return {
    width,
    height,
    scale,
    viewport,
    rows: (top, count) => ctx.getImageData(0, top, width, count).data,
    png: async () => ({ png: new Uint8Array(await canvas.encode('png')), width, height, scale, viewport }),
  };
}

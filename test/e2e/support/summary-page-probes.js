/* global document, Image -- run in the browser */
// Functions run inside the browser by test/e2e/summary-page.test.ts (page.evaluate sends their
// source). Plain JavaScript: the tests are type-checked without the DOM library.

/** Each chart: its id, its SVG's size, the lengths of its line paths and of its bars. */
export function measureCharts() {
  const length = (el) => Math.abs(Number(el.getAttribute('x2')) - Number(el.getAttribute('x1')));
  return [...document.querySelectorAll('.chart')].map((div) => {
    const svg = div.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    return {
      id: div.id,
      width: box.width,
      height: box.height,
      lines: [...div.querySelectorAll('path.ct-line')].map((p) => p.getTotalLength()),
      bars: [...div.querySelectorAll('line.ct-bar')].map(length),
    };
  });
}

/** The totals the page shows, and the cells of its unpaid table. */
export function shownFigures() {
  const text = (selector) => document.querySelector(selector)?.textContent ?? null;
  return {
    due: text('[data-figure="due"]'),
    collected: text('[data-figure="collected"]'),
    shortfall: text('[data-figure="shortfall"]'),
    settled: text('[data-figure="settlement.total_collections"]'),
    unpaid: [...document.querySelectorAll('#table-unpaid tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
  };
}

/** A PNG (base64) drawn into a canvas: its width, pixel count and pixels that are not near-white. */
export async function inkedPixels(b64) {
  const img = new Image();
  img.src = `data:image/png;base64,${b64}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.width;
  canvas.height = img.height;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, img.width, img.height).data;
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] < 240 || px[i + 1] < 240 || px[i + 2] < 240) n++;
  return { n, total: px.length / 4, width: img.width };
}

/** The tables in scrolling boxes whose content is wider than the box (on paper, cut off). */
export function tablesWiderThanTheirBox() {
  return [...document.querySelectorAll('.wide')].filter((d) => d.scrollWidth > d.clientWidth).map((d) => d.firstElementChild.id);
}

/**
 * Each chart's accessible name (role and label) and its x-axis labels as shown (their text's
 * extent, not their boxes): how many, those that start before the previous one ends (run into
 * it), and those whose text reaches past the chart's SVG (cut off).
 */
export function chartLabels() {
  return [...document.querySelectorAll('.chart')].map((div) => {
    const svg = div.querySelector('svg').getBoundingClientRect();
    const texts = [...div.querySelectorAll('.ct-label.ct-horizontal')]
      .filter((l) => l.textContent !== '')
      .map((l) => {
        const range = document.createRange();
        range.selectNodeContents(l);
        const box = range.getBoundingClientRect();
        return { text: l.textContent, left: box.left, right: box.right };
      });
    return {
      id: div.id,
      role: div.getAttribute('role'),
      label: div.getAttribute('aria-label'),
      shown: texts.length,
      overlapping: texts.slice(1).filter((t, i) => t.left < texts[i].right).map((t) => t.text),
      cut: texts.filter((t) => t.left < svg.left || t.right > svg.right).map((t) => t.text),
    };
  });
}

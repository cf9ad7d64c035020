/** A dependency-free grouped bar chart as SVG (labelled values, linear or log10 axis), for RESULTS.md. */
export interface ChartGroup { readonly label: string; readonly values: Record<string, number> }

const COLORS = ['#2f6fb5', '#e0823d', '#4a9a5b', '#9b59b6'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface ChartOptions {
  /** 'log' when series differ by orders of magnitude, so the small bars stay visible. Default 'linear'. */
  readonly scale?: 'linear' | 'log';
}

function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

export function groupedBarChartSvg(title: string, unit: string, groups: ChartGroup[], options: ChartOptions = {}): string {
  const log = options.scale === 'log';
  const series = [...new Set(groups.flatMap((g) => Object.keys(g.values)))];
  const width = 720;
  const height = 360;
  const left = 70;
  const top = 50;
  const bottom = 50;
  const plotH = height - top - bottom;
  const plotW = width - left - 20;
  const max = Math.max(...groups.flatMap((g) => Object.values(g.values)), 1);
  // Log axis: from 1 to the next power of ten; bar height proportional to log10(value).
  const decades = Math.max(1, Math.ceil(Math.log10(max)));
  const frac = (v: number): number => (log ? Math.max(0, Math.log10(Math.max(v, 1))) / decades : v / max);
  const groupW = plotW / groups.length;
  const barW = Math.min(60, (groupW * 0.8) / series.length);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  const ticks = log ? Array.from({ length: decades + 1 }, (_, t) => 10 ** t) : [0, 1, 2, 3, 4].map((t) => (max * t) / 4);
  for (const v of ticks) {
    const y = top + plotH - plotH * frac(v);
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${log ? v.toLocaleString('en-US') : fmt(v)}</text>`);
  }
  const axis = log ? `${unit} (log scale)` : unit;
  parts.push(`<text x="16" y="${top + plotH / 2}" transform="rotate(-90 16 ${top + plotH / 2})" text-anchor="middle">${esc(axis)}</text>`);
  groups.forEach((g, gi) => {
    const gx = left + gi * groupW + (groupW - barW * series.length) / 2;
    series.forEach((s, si) => {
      const v = g.values[s] ?? 0;
      const h = plotH * frac(v);
      const x = gx + si * barW;
      const y = top + plotH - h;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[si % COLORS.length]}"/>`);
      parts.push(`<text x="${(x + (barW - 4) / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle" font-size="10">${fmt(v)}</text>`);
    });
    parts.push(`<text x="${(left + gi * groupW + groupW / 2).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle">${esc(g.label)}</text>`);
  });
  series.forEach((s, si) => {
    const x = left + 10 + si * 260;
    parts.push(`<rect x="${x}" y="${height - 18}" width="12" height="12" fill="${COLORS[si % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 18}" y="${height - 8}">${esc(s)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

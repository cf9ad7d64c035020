/** A dependency-free grouped bar chart as SVG (log-free, labelled values), for RESULTS.md. */
export interface ChartGroup { readonly label: string; readonly values: Record<string, number> }

const COLORS = ['#2f6fb5', '#e0823d', '#4a9a5b', '#9b59b6'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function groupedBarChartSvg(title: string, unit: string, groups: ChartGroup[]): string {
  const series = [...new Set(groups.flatMap((g) => Object.keys(g.values)))];
  const width = 720;
  const height = 360;
  const left = 70;
  const top = 50;
  const bottom = 50;
  const plotH = height - top - bottom;
  const plotW = width - left - 20;
  const max = Math.max(...groups.flatMap((g) => Object.values(g.values)), 1);
  const groupW = plotW / groups.length;
  const barW = Math.min(60, (groupW * 0.8) / series.length);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4;
    const y = top + plotH - (plotH * t) / 4;
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end">${v >= 100 ? v.toFixed(0) : v.toFixed(1)}</text>`);
  }
  parts.push(`<text x="16" y="${top + plotH / 2}" transform="rotate(-90 16 ${top + plotH / 2})" text-anchor="middle">${esc(unit)}</text>`);
  groups.forEach((g, gi) => {
    const gx = left + gi * groupW + (groupW - barW * series.length) / 2;
    series.forEach((s, si) => {
      const v = g.values[s] ?? 0;
      const h = (plotH * v) / max;
      const x = gx + si * barW;
      const y = top + plotH - h;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[si % COLORS.length]}"/>`);
      parts.push(`<text x="${(x + (barW - 4) / 2).toFixed(1)}" y="${(y - 4).toFixed(1)}" text-anchor="middle" font-size="10">${v >= 100 ? v.toFixed(0) : v.toFixed(1)}</text>`);
    });
    parts.push(`<text x="${(left + gi * groupW + groupW / 2).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle">${esc(g.label)}</text>`);
  });
  series.forEach((s, si) => {
    const x = left + 10 + si * 170;
    parts.push(`<rect x="${x}" y="${height - 18}" width="12" height="12" fill="${COLORS[si % COLORS.length]}"/>`);
    parts.push(`<text x="${x + 18}" y="${height - 8}">${esc(s)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

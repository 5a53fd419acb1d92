const pages = JSON.parse(document.getElementById('data').textContent);
const body = document.querySelector('#pages tbody');
const colors = {document:'#3b6ea5',stylesheet:'#8a5fb8',script:'#c0a02a',image:'#3a8a4f',font:'#b8603b',
  fetch:'#2a9ac0',media:'#b83b7a',other:'#888'};
let matching = pages, offset = 0;
const size = 50;
const text = (tag, value, attributes = {}) => {
  const element = document.createElement(tag);
  element.textContent = value;
  for (const [name, v] of Object.entries(attributes)) element.setAttribute(name, v);
  return element;
};
const ms = v => v === undefined ? '–' : (v >= 1000 ? (v / 1000).toFixed(2) + ' s' : Math.round(v) + ' ms');
const kb = v => v >= 1048576 ? (v / 1048576).toFixed(1) + ' MB' : v >= 1024 ? (v / 1024).toFixed(1) + ' kB' : v + ' B';
function render() {
  body.replaceChildren();
  for (const page of matching.slice(offset, offset + size)) {
    const row = document.createElement('tr');
    row.append(text('td', page.u), text('td', page.o + (page.e ? ' (' + page.e + ')' : '') + (page.k ? ' (' + page.k + ')' : '')),
      text('td', page.s ?? '–'), text('td', ms(page.f)), text('td', kb(page.b)), text('td', page.n),
      miniWaterfall(page), thumbnail(page));
    row.addEventListener('click', () => show(page));
    body.append(row);
  }
  document.getElementById('page-count').textContent = matching.length + ' of ' + pages.length + ' pages';
  document.getElementById('pager-position').textContent = matching.length === 0 ? '' :
    (offset + 1) + '–' + Math.min(offset + size, matching.length);
  document.getElementById('previous').disabled = offset === 0;
  document.getElementById('next').disabled = offset + size >= matching.length;
}
// A row's requests over time: one line per request (the first 30), 120x30 pixels.
function miniWaterfall(page) {
  const cell = document.createElement('td');
  const requests = page.w.slice(0, 30);
  if (!requests.length) return cell;
  const end = Math.max(1, ...requests.map(r => r[1] + r[2]));
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('width', 120); svg.setAttribute('height', 30); svg.setAttribute('class', 'mini');
  const step = 30 / requests.length;
  requests.forEach((r, i) => {
    const bar = document.createElementNS(svgNS, 'rect');
    bar.setAttribute('x', 120 * r[1] / end); bar.setAttribute('y', i * step);
    bar.setAttribute('width', Math.max(1, 120 * r[2] / end)); bar.setAttribute('height', Math.max(1, step - 0.5));
    bar.setAttribute('fill', colors[r[0]] || '#888');
    svg.append(bar);
  });
  cell.append(svg);
  return cell;
}
function thumbnail(page) {
  const cell = document.createElement('td');
  cell.className = 'thumb';
  if (page.sh) cell.append(text('img', '', {src: page.sh, alt: 'screenshot', loading: 'lazy'}));
  return cell;
}
function show(page) {
  history.replaceState(null, '', '#page=' + (pages.indexOf(page) + 1));
  const detail = document.getElementById('detail');
  detail.hidden = false;
  document.getElementById('detail-title').textContent = page.u;
  document.getElementById('detail-facts').textContent = [page.t, page.o, page.s ? 'HTTP ' + page.s : '',
    'load ' + ms(page.f), kb(page.b), page.n + ' requests'].filter(Boolean).join(' · ');
  const end = Math.max(1, ...page.w.map(r => r[1] + r[2]));
  const width = 1000, label = 360, row = 16;
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNS, 'svg');
  svg.setAttribute('width', width); svg.setAttribute('height', page.w.length * row + 24);
  svg.setAttribute('id', 'waterfall-chart');
  page.w.forEach((r, i) => {
    const [type, start, time, status, bytes, url] = r;
    const name = document.createElementNS(svgNS, 'text');
    name.setAttribute('x', 0); name.setAttribute('y', i * row + 12);
    name.textContent = (status || '✕') + ' ' + url.replace(/^https?:\/\/[^/]+/, '').slice(0, 50);
    const bar = document.createElementNS(svgNS, 'rect');
    bar.setAttribute('class', 'request');
    bar.setAttribute('x', label + (width - label - 10) * start / end);
    bar.setAttribute('y', i * row + 3);
    bar.setAttribute('width', Math.max(2, (width - label - 10) * time / end));
    bar.setAttribute('height', row - 5);
    bar.setAttribute('fill', colors[type] || '#888');
    const tip = document.createElementNS(svgNS, 'title');
    tip.textContent = type + ' ' + url + ': starts ' + ms(start) + ', takes ' + ms(time) + ', ' + kb(bytes);
    bar.append(tip);
    svg.append(name, bar);
  });
  const scale = document.createElementNS(svgNS, 'text');
  scale.setAttribute('x', width - 10); scale.setAttribute('y', page.w.length * row + 18);
  scale.setAttribute('text-anchor', 'end'); scale.textContent = ms(end);
  svg.append(scale);
  document.getElementById('waterfall').replaceChildren(page.w.length ? svg : text('p', 'No requests recorded.'));
  document.getElementById('screenshot').replaceChildren(...(page.sh ? [text('img', '', {src: page.sh, alt: 'screenshot'})] : []));
  detail.scrollIntoView();
}
document.getElementById('search').addEventListener('input', event => {
  const query = event.target.value.toLowerCase();
  matching = pages.filter(p => [p.u, p.t, p.o, p.e, p.k, String(p.s ?? '')].some(v => v && v.toLowerCase().includes(query)));
  offset = 0; render();
});
document.getElementById('previous').addEventListener('click', () => { offset = Math.max(0, offset - size); render(); });
document.getElementById('next').addEventListener('click', () => { offset += size; render(); });
render();
const opened = location.hash.match(/^#page=(\d+)$/);
if (opened && pages[opened[1] - 1]) show(pages[opened[1] - 1]);

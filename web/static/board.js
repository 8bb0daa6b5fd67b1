// Draws a board position ({"size", "cells", "off"}, see web/view.py) as SVG, for all five games.

const NS = "http://www.w3.org/2000/svg";
const CELL = 100;
const MARGIN = 44;

export const COLOURS = {
  light: "#dec496", dark: "#5c3c26", lightEdge: "#9c7d4c", darkEdge: "#2e1c10",
  meepleLight: "#f5f0e4", meepleDark: "#231e1c",
  M: "#f0e1be", N: "#3c3c41", X: "#c82828", Y: "#2850be",
  donkey: "#828287", dog: "#965f32", cat: "#eb8228",
  red: "#c82828", yellow: "#ebc828", green: "#28963c", blue: "#2850be", black: "#19191c",
  clear: "#e4e8ec", brown: "#784e2d", white: "#fdf9ef", cubeEdge: "#5b4a3a",
  mat: "#ebe8e1", line: "#969696", last: "#e06c00", hint: "#1f7a8c", alert: "#d0021b",
  lifted: "#1565ff", dest: "#12a34a",
};

const ANIMAL_SIZE = { donkey: 0.84, dog: 0.64, cat: 0.47 };
const PYRAMID_SIZE = { L: 0.64, M: 0.49, S: 0.35 };
const TOP_KINDS = new Set(["meeple", "pawn"]);

function el(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, words, attrs = {}) {
  const node = el("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs }, parent);
  node.textContent = words;
  return node;
}

// Returns [file, rank] (0-based) of a square name such as "c3".
export function squareIndex(name) {
  return [name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1];
}

// Returns the top-left corner of a square in SVG units (rank 1 at the bottom).
function corner(name, size) {
  const [file, rank] = squareIndex(name);
  return [MARGIN + file * CELL, (size - 1 - rank) * CELL];
}

function centre(name, size) {
  const [x, y] = corner(name, size);
  return [x + CELL / 2, y + CELL / 2];
}

function square(parent, name, size, fraction, attrs) {
  const [cx, cy] = centre(name, size);
  const side = CELL * fraction;
  return el("rect", { x: cx - side / 2, y: cy - side / 2, width: side, height: side, ...attrs }, parent);
}

function grid(svg, size) {
  el("rect", { x: MARGIN, y: 0, width: size * CELL, height: size * CELL, fill: COLOURS.mat }, svg);
  for (let i = 0; i <= size; i += 1) {
    el("line", { x1: MARGIN + i * CELL, y1: 0, x2: MARGIN + i * CELL, y2: size * CELL, stroke: COLOURS.line, "stroke-width": 2 }, svg);
    el("line", { x1: MARGIN, y1: i * CELL, x2: MARGIN + size * CELL, y2: i * CELL, stroke: COLOURS.line, "stroke-width": 2 }, svg);
  }
  for (let i = 0; i < size; i += 1) {
    text(svg, MARGIN + i * CELL + CELL / 2, size * CELL + MARGIN / 2 + 2, String.fromCharCode(97 + i), { class: "coord" });
    text(svg, MARGIN / 2, (size - 1 - i) * CELL + CELL / 2, String(i + 1), { class: "coord" });
  }
}

// -- pieces that stand alone ------------------------------------------------------------

function block(g, piece, name, size) {
  const fill = COLOURS[piece.colour] || COLOURS.light;
  const edge = piece.colour === "dark" ? COLOURS.darkEdge : COLOURS.lightEdge;
  if (piece.orientation === "lying" && piece.other) {
    if (piece.other < name) return; // drawn once, from its first square
    const [x1, y1] = corner(name, size);
    const [x2, y2] = corner(piece.other, size);
    const x = Math.min(x1, x2) + 7, y = Math.min(y1, y2) + 7;
    const width = Math.abs(x1 - x2) + CELL - 14, height = Math.abs(y1 - y2) + CELL - 14;
    el("rect", { x, y, width, height, rx: 10, fill, stroke: edge, "stroke-width": 5, "data-kind": "block", "data-orientation": "lying" }, g);
    return;
  }
  square(g, name, size, 0.84, { rx: 8, fill, stroke: edge, "stroke-width": 5, "data-kind": "block", "data-orientation": "upright" });
  square(g, name, size, 0.5, { rx: 4, fill: "none", stroke: edge, "stroke-width": 3 });
}

function meeple(g, piece, name, size) {
  const [cx, cy] = centre(name, size);
  const dark = piece.colour === "dark";
  const path = "M0,-28 C7,-28 10,-22 10,-17 C10,-13 8,-11 7,-10 L24,-5 C28,-4 29,2 25,4 L14,8 L22,24 C23,27 21,29 18,29 L6,29 L0,20 L-6,29 L-18,29 C-21,29 -23,27 -22,24 L-14,8 L-25,4 C-29,2 -28,-4 -24,-5 L-7,-10 C-8,-11 -10,-13 -10,-17 C-10,-22 -7,-28 0,-28 Z";
  el("path", {
    d: path, transform: `translate(${cx},${cy})`, fill: dark ? COLOURS.meepleDark : COLOURS.meepleLight,
    stroke: dark ? "#ffffff" : "#222222", "stroke-width": 3, "stroke-linejoin": "round", "data-kind": "meeple",
  }, g);
}

function blocker(g, piece, name, size) {
  const fill = COLOURS[piece.label] || COLOURS.M;
  square(g, name, size, 0.8, { rx: 6, fill, stroke: "#333", "stroke-width": 3, "data-kind": "blocker" });
  text(g, ...centre(name, size), piece.label, { class: "label", fill: piece.label === "N" ? "#fff" : "#222" });
}

function pawn(g, piece, name, size) {
  const [cx, cy] = centre(name, size);
  el("circle", { cx, cy, r: 27, fill: COLOURS[piece.label] || "#888", stroke: "#fff", "stroke-width": 5, "data-kind": "pawn" }, g);
  text(g, cx, cy, piece.label, { class: "label", fill: "#fff" });
}

function unknown(g, piece, name, size) {
  const [cx, cy] = centre(name, size);
  el("circle", { cx, cy, r: 24, fill: "#bbb", stroke: "#555", "stroke-width": 3, "data-kind": piece.kind }, g);
  text(g, cx, cy, String(piece.kind || "?").slice(0, 2), { class: "label" });
}

const SINGLE = { block, blocker, meeple, pawn };

// -- stacks drawn as a whole -------------------------------------------------------------

function badge(g, name, size, words) {
  const [x, y] = corner(name, size);
  el("rect", { x: x + CELL - 40, y: y + 3, width: 37, height: 26, rx: 13, fill: "#111", opacity: 0.8 }, g);
  text(g, x + CELL - 21.5, y + 16, words, { class: "badge", fill: "#fff" });
}

function animals(g, pieces, name, size) {
  for (const piece of pieces) {
    square(g, name, size, ANIMAL_SIZE[piece.kind] || 0.5, { rx: 10, fill: COLOURS[piece.kind] || "#999", stroke: "#222", "stroke-width": 3, "data-kind": piece.kind });
  }
  const top = pieces[pieces.length - 1].kind;
  const [cx, cy] = centre(name, size);
  text(g, cx, cy, top, { class: "small-label", fill: top === "cat" ? "#222" : "#fff" });
  if (pieces.length > 1) badge(g, name, size, `×${pieces.length}`);
}

function pyramids(g, pieces, name, size) {
  let depth = 0;
  for (const piece of pieces) {
    const fraction = Math.max(0.18, (PYRAMID_SIZE[piece.size] || 0.4) - depth * 0.03);
    const fill = COLOURS[piece.colour] || "#999";
    const node = square(g, name, size, fraction, {
      fill, stroke: piece.colour === "black" ? "#777" : "#222", "stroke-width": 3, "data-kind": "pyramid",
      "data-colour": piece.colour, "data-size": piece.size,
    });
    if (piece.colour === "clear") node.setAttribute("fill-opacity", "0.75");
    depth = piece.size === "L" ? 0 : depth + 1;
  }
  const top = pieces[pieces.length - 1];
  const [cx, cy] = centre(name, size);
  const half = (CELL * (PYRAMID_SIZE[top.size] || 0.4)) / 2;
  const edges = `M${cx - half},${cy - half} L${cx + half},${cy + half} M${cx + half},${cy - half} L${cx - half},${cy + half}`;
  el("path", { d: edges, stroke: top.colour === "black" ? "#888" : "#00000055", "stroke-width": 2 }, g);
  if (pieces.some((piece) => piece.locked)) {
    square(g, name, size, 0.9, { fill: "none", stroke: "#111", "stroke-width": 6, "stroke-dasharray": "14 8", "data-locked": "true" });
  }
  if (pieces.length > 3) badge(g, name, size, `${pieces.length}`);
}

function cubeTop(g, piece, name, size) {
  const [x, y] = corner(name, size);
  const inset = 6;
  const box = { x: x + inset, y: y + inset, width: CELL - 2 * inset, height: CELL - 2 * inset };
  if (piece.top === "half") {
    el("rect", { ...box, fill: COLOURS.white, stroke: COLOURS.cubeEdge, "stroke-width": 2, "data-kind": "cube", "data-top": "half" }, g);
    const a = [x + inset, y + CELL - inset], b = [x + CELL - inset, y + inset], c = [x + inset, y + inset];
    el("polygon", { points: `${a} ${b} ${c}`, fill: COLOURS.brown }, g);
    return;
  }
  el("rect", { ...box, fill: COLOURS[piece.top] || "#999", stroke: COLOURS.cubeEdge, "stroke-width": 2, "data-kind": "cube", "data-top": piece.top }, g);
}

function neighbour(name, dx, dy) {
  const [file, rank] = squareIndex(name);
  return String.fromCharCode(97 + file + dx) + String(rank + 1 + dy);
}

// Joins a column to its right, upper and upper-right neighbours when their top cubes belong to
// the same block at the same height, so that one block reads as one shape.
function bridges(g, cells, name, size) {
  const mine = cells[name].at(-1);
  const same = (dx, dy) => {
    const other = cells[neighbour(name, dx, dy)] || [];
    return other.length === cells[name].length && other.at(-1).block === mine.block && other.at(-1).top === mine.top;
  };
  const [x, y] = corner(name, size);
  const fill = COLOURS[mine.top] || "#999";
  if (same(1, 0)) el("rect", { x: x + CELL - 8, y: y + 6, width: 16, height: CELL - 12, fill }, g);
  if (same(0, 1)) el("rect", { x: x + 6, y: y - 8, width: CELL - 12, height: 16, fill }, g);
  if (same(1, 0) && same(0, 1) && same(1, 1)) el("rect", { x: x + CELL - 8, y: y - 8, width: 16, height: 16, fill }, g);
}

function column(g, pieces, name, size) {
  cubeTop(g, pieces[pieces.length - 1], name, size);
}

// Draws, over all the columns, the bridges between cells of one block and each column's height.
function blocks(ground, tops, cells, size) {
  const columns = Object.entries(cells).filter(([, pieces]) => pieces.length && pieces[0].kind === "cube");
  for (const [name, pieces] of columns) if (pieces.at(-1).top !== "half") bridges(ground, cells, name, size);
  for (const [name, pieces] of columns) {
    const [x, y] = corner(name, size);
    el("circle", { cx: x + 20, cy: y + 20, r: 13, fill: "#fff", stroke: "#222", "stroke-width": 2 }, tops);
    text(tops, x + 20, y + 21, String(pieces.length), { class: "badge", fill: "#222", "data-height": pieces.length });
  }
}

const STACKS = { cube: column, pyramid: pyramids, donkey: animals, dog: animals, cat: animals };

// -- highlights ------------------------------------------------------------------------------

function outline(g, name, size, colour, attrs = {}) {
  square(g, name, size, 0.96, { fill: "none", stroke: colour, "stroke-width": 7, ...attrs });
}

function highlights(svg, view, size) {
  const g = el("g", { class: "highlights" }, svg);
  const inside = (name) => typeof name === "string" && /^[a-z][0-9]{1,2}$/.test(name) && squareIndex(name).every((i) => i >= 0 && i < size);
  for (const name of (view.hints && view.hints.to) || []) {
    if (!inside(name)) continue;
    const [x, y] = corner(name, size);
    el("circle", { cx: x + CELL - 16, cy: y + CELL - 16, r: 9, fill: COLOURS.hint, opacity: 0.85, "data-hint": name }, g);
  }
  const last = view.last_move;
  for (const name of (last && last.from) || []) if (inside(name)) outline(g, name, size, COLOURS.last, { "stroke-dasharray": "12 8" });
  for (const name of (last && last.to) || []) if (inside(name)) outline(g, name, size, COLOURS.last, { "data-last": name });
  const alert = currentAlert(view);
  for (const name of (alert && alert.squares) || []) if (inside(name)) outline(g, name, size, COLOURS.alert, { "stroke-width": 5, "data-alert": name });
  held(g, view.lifted, size, inside);
}

// Outlines the square of the piece held up and rings the squares its legal moves reach.
function held(g, lifted, size, inside) {
  if (!lifted || !inside(lifted.square)) return;
  for (const name of Array.isArray(lifted.to) ? lifted.to : []) {
    if (!inside(name)) continue;
    const [cx, cy] = centre(name, size);
    el("circle", { cx, cy, r: 20, fill: COLOURS.dest, "fill-opacity": 0.35, stroke: COLOURS.dest, "stroke-width": 6, "data-dest": name }, g);
  }
  outline(g, lifted.square, size, COLOURS.lifted, { "stroke-width": 9, "data-lifted": lifted.square });
}

// -- the whole board -------------------------------------------------------------------------

function pieces(svg, cells, size) {
  const ground = el("g", { class: "ground" }, svg);
  const tops = el("g", { class: "tops" }, svg);
  for (const [name, list] of Object.entries(cells)) {
    if (!Array.isArray(list) || !list.length) continue;
    const stack = STACKS[list[0].kind];
    if (stack) {
      stack(ground, list, name, size, cells);
      continue;
    }
    for (const piece of list) (SINGLE[piece.kind] || unknown)(TOP_KINDS.has(piece.kind) ? tops : ground, piece, name, size);
  }
  blocks(ground, tops, cells, size);
}

// Returns the newest alert, or null once a move came after it (the server counts alerts_since_move).
export function currentAlert(view) {
  return view.alerts_since_move > 0 ? (view.alerts || []).at(-1) || null : null;
}

// Draws the position of /api/state into the container (an empty note when there is none),
// with view.lifted ({square, to} or null) as the piece held up.
export function drawBoard(container, view) {
  container.replaceChildren();
  const board = view.board;
  if (!board || !Number.isInteger(board.size) || board.size < 1 || board.size > 26) {
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = "This game cannot draw its board yet; the moves and state are below.";
    container.appendChild(note);
    return;
  }
  const size = board.size;
  const side = size * CELL;
  const svg = el("svg", {
    viewBox: `0 0 ${side + MARGIN} ${side + MARGIN}`, role: "img", "aria-label": `${view.game} board`,
    "data-game": view.game, "data-size": size,
  }, container);
  grid(svg, size);
  pieces(svg, board.cells || {}, size);
  highlights(svg, view, size);
}

// Returns one readable line per thing that is off the grid (hands, supply, points, roll).
export function describeOff(off, sideName = (player) => `player ${player}`) {
  const lines = [];
  const words = (value) => {
    if (value === null || value === undefined) return "—";
    if (value === true) return "yes";
    if (value === false) return "no";
    if (Array.isArray(value)) return value.map((item) => (Array.isArray(item) ? item.join("+") : words(item))).join(", ") || "none";
    if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${words(v)}`).join(", ");
    return String(value);
  };
  for (const [key, value] of Object.entries(off || {})) {
    const label = key.replaceAll("_", " ");
    const perPlayer = value && typeof value === "object" && !Array.isArray(value) && "1" in value && "2" in value;
    if (perPlayer) {
      for (const player of ["1", "2"]) lines.push(`${label}, ${sideName(player)}: ${words(value[player])}`);
    } else {
      lines.push(`${label}: ${words(value)}`);
    }
  }
  return lines;
}

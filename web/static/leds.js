// Draws whatever the LED simulator publishes in a "leds" event: board cells by square name
// ({"cells": {"a1": "#rrggbb"}, "width", "height", "frame": {"status", "counters"}}), or a plain
// list of colours as a panel of lights, or, for any other shape, the JSON itself.

const NS = "http://www.w3.org/2000/svg";
const LIST_KEYS = ["leds", "pixels", "colours", "colors", "rgb"];
const PITCH = 20;

// Returns a CSS colour for [r, g, b], {r, g, b}, "#rrggbb" or 0xRRGGBB, or null.
export function cssColour(value) {
  const byte = (n) => Number.isInteger(n) && n >= 0 && n <= 255;
  if (Array.isArray(value) && value.length >= 3 && value.slice(0, 3).every(byte)) return `rgb(${value[0]}, ${value[1]}, ${value[2]})`;
  if (value && typeof value === "object" && ["r", "g", "b"].every((k) => byte(value[k]))) return `rgb(${value.r}, ${value.g}, ${value.b})`;
  if (typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value)) return value;
  if (Number.isInteger(value) && value >= 0 && value <= 0xffffff) return `#${value.toString(16).padStart(6, "0")}`;
  return null;
}

function svgOf(width, height, label) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width * PITCH} ${height * PITCH}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  return svg;
}

function light(svg, column, row, value, name) {
  const dot = document.createElementNS(NS, "circle");
  dot.setAttribute("cx", String(column * PITCH + PITCH / 2));
  dot.setAttribute("cy", String(row * PITCH + PITCH / 2));
  dot.setAttribute("r", "8");
  dot.setAttribute("fill", cssColour(value) || "#000");
  dot.setAttribute("stroke", "#555");
  dot.setAttribute("data-led", name);
  svg.appendChild(dot);
}

// Draws {"a1": colour, ...} laid out like the board, rank 1 at the bottom.
function boardPanel(container, cells, data) {
  const places = Object.keys(cells).filter((name) => /^[a-z][0-9]{1,2}$/.test(name))
    .map((name) => [name, name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1]);
  const width = Number.isInteger(data.width) ? data.width : Math.max(...places.map((p) => p[1])) + 1;
  const height = Number.isInteger(data.height) ? data.height : Math.max(...places.map((p) => p[2])) + 1;
  if (!places.length || width > 64 || height > 64) return false;
  const svg = svgOf(width, height, `${places.length} board LEDs`);
  for (const [name, file, rank] of places) light(svg, file, height - 1 - rank, cells[name], name);
  container.appendChild(svg);
  return true;
}

// Draws each player's status light and counter, when the frame has them.
function playerLines(container, frame) {
  if (!frame || typeof frame !== "object" || !frame.status) return;
  for (const player of ["1", "2"]) {
    const line = document.createElement("p");
    line.className = "led-player";
    const dot = document.createElement("span");
    dot.className = "led-dot";
    dot.style.backgroundColor = cssColour(frame.status[player]) || "#000";
    line.append(dot, `Player ${player}`, frame.counters && frame.counters[player] !== null ? ` · ${frame.counters[player]}` : "");
    container.appendChild(line);
  }
}

function listPanel(container, list, data) {
  const rows = Array.isArray(list[0]) && cssColour(list[0]) === null;
  const lights = rows ? list.flat() : list;
  if (!lights.length || lights.length > 4096 || !lights.some((value) => cssColour(value) !== null)) return false;
  const given = rows ? list[0].length : data.width;
  const width = Number.isInteger(given) && given > 0 ? given : Math.ceil(Math.sqrt(lights.length));
  const svg = svgOf(width, Math.ceil(lights.length / width), `${lights.length} LEDs`);
  lights.forEach((value, i) => light(svg, i % width, Math.floor(i / width), value, String(i)));
  container.appendChild(svg);
  return true;
}

// Draws an LED frame into the container.
export function drawLeds(container, data) {
  container.replaceChildren();
  if (!data || typeof data !== "object") return;
  const cells = data.cells || (data.frame && data.frame.cells);
  if (cells && typeof cells === "object" && !Array.isArray(cells) && boardPanel(container, cells, data)) {
    playerLines(container, data.frame);
    return;
  }
  const list = LIST_KEYS.map((key) => data[key]).find(Array.isArray);
  if (list && listPanel(container, list, data)) return;
  const raw = document.createElement("pre");
  const { id, type, ...rest } = data;
  raw.textContent = JSON.stringify(rest, null, 1).slice(0, 2000);
  container.appendChild(raw);
}

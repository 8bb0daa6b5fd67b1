// The dashboard page: follows /events, redraws from /api/state, and sends the PIN-guarded controls.

import { currentAlert, describeOff, drawBoard } from "./board.js";
import { drawLeds } from "./leds.js";

const $ = (id) => document.getElementById(id);
const LIVE = document.body.dataset.mode === "live";
const SESSION_EVENTS = new Set(["move", "undo", "alert", "new-game", "resumed"]);
// Session events after which no piece is held up any more.
const SETTLING_EVENTS = new Set(["move", "undo", "new-game", "resumed"]);
const SIDES = {
  "block-arena": { 1: "Light", 2: "Dark" },
  "block-pt": { 1: "X", 2: "Y" },
  tuned: { 1: "Player 1", 2: "Player 2" },
  blockade: { 1: "Cool (blue + green)", 2: "Warm (red + yellow)" },
  "block-block": { 1: "Brown", 2: "White" },
};
const DICE = { b: "blue", g: "green", r: "red", y: "yellow" };

const page = {
  csrf: "", loggedIn: false, view: null, fetching: false, again: false, games: [],
  lifted: null, liftedAt: 0, // the piece held up ({square, to}) and the event id it is as of
};

function side(game, player) {
  return (SIDES[game] && SIDES[game][player]) || `Player ${player}`;
}

function item(tag, words, className) {
  const node = document.createElement(tag);
  node.textContent = words;
  if (className) node.className = className;
  return node;
}

// -- drawing the state -----------------------------------------------------------------------

function facts(list, values, game) {
  list.replaceChildren();
  const name = (key) => (key === "1" || key === "2" ? side(game, key) : key.replaceAll("_", " "));
  const add = (key, value) => {
    list.appendChild(item("dt", key));
    list.appendChild(item("dd", typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)));
  };
  for (const [key, value] of Object.entries(values || {})) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value)) add(`${name(key)} ${name(inner)}`, v);
    } else {
      add(name(key), value);
    }
  }
  if (!list.children.length) list.appendChild(item("dd", "—", "muted"));
}

function drawTurn(view) {
  const name = view.variant ? `${view.game} ${view.variant}` : view.game;
  $("title").textContent = name;
  const outcome = $("outcome");
  outcome.hidden = !view.outcome;
  if (view.outcome) {
    const who = view.outcome.winner ? `${side(view.game, view.outcome.winner)} wins` : "Draw";
    outcome.textContent = `${who} (${view.outcome.reason})`;
  }
  $("turn").textContent = view.to_move ? `${side(view.game, view.to_move)} to play · move ${view.ply + 1}` : "Game over";
}

function drawHistory(view) {
  const list = $("history");
  list.replaceChildren(...view.history.map((move) => item("li", move)));
  if (list.lastElementChild) list.lastElementChild.classList.add("latest");
  list.scrollTop = list.scrollHeight;
}

function alertBox(alert, pending) {
  const box = item("div", "", `alert alert-${alert.kind}`);
  const heading = { illegal: "Illegal move", ambiguous: "Which move was it?", camera: "Camera trouble" }[alert.kind] || alert.kind;
  box.appendChild(item("strong", heading));
  box.appendChild(item("p", alert.message));
  if (alert.kind === "ambiguous" && pending.length) {
    const row = item("div", "", "row");
    for (const move of pending) {
      const button = item("button", move, "confirm");
      button.type = "button";
      button.disabled = !(LIVE && page.loggedIn);
      button.addEventListener("click", () => control("/api/confirm", { move }));
      row.appendChild(button);
    }
    box.appendChild(row);
  }
  return box;
}

// Shows the question awaiting confirmation, and the newest other alert unless a move came after it.
function drawAlerts(view) {
  const boxes = [];
  if (view.pending.length) {
    const asked = view.alerts.findLast((alert) => alert.kind === "ambiguous");
    boxes.push(alertBox(asked || { kind: "ambiguous", message: "Confirm the move." }, view.pending));
  }
  const latest = currentAlert(view);
  if (latest && latest.kind !== "ambiguous") boxes.push(alertBox(latest, []));
  $("alerts").replaceChildren(...boxes);
}

function drawCamera(view) {
  const image = $("camera");
  image.src = `/api/snapshot.jpg?at=${view.event_id}`;
}

function drawControls(view) {
  if (!LIVE) return;
  const rolls = view.legal.filter((move) => move.startsWith("roll:"));
  $("roll").hidden = !rolls.length;
  if (rolls.length) {
    const [, a, , b] = /^roll:([a-z])(\d)([a-z])(\d)$/.exec(rolls[0]) || [];
    $("die1-label").textContent = DICE[a] || a;
    $("die2-label").textContent = DICE[b] || b;
    $("roll").dataset.letters = `${a}${b}`;
  }
  $("legal").replaceChildren(...view.legal.slice(0, 400).map((move) => Object.assign(document.createElement("option"), { value: move })));
}

// Keeps the piece held up ({square, to} or null) as of an event id, unless the page knows a newer one.
function keepLifted(lifted, at) {
  if (!(at >= page.liftedAt)) return;
  page.liftedAt = at;
  page.lifted = lifted && typeof lifted.square === "string" ? { square: lifted.square, to: lifted.to } : null;
}

function drawHeld() {
  if (page.view) drawBoard($("board"), { ...page.view, lifted: page.lifted });
}

function render(view) {
  page.view = view;
  drawTurn(view);
  keepLifted(view.lifted, view.event_id);
  drawHeld();
  const off = describeOff(view.board && view.board.off, (player) => side(view.game, player));
  $("off").replaceChildren(...off.map((line) => item("li", line)));
  facts($("scores"), view.scores, view.game);
  facts($("counters"), view.counters, view.game);
  drawHistory(view);
  drawAlerts(view);
  drawControls(view);
  if (view.leds) drawLeds($("leds"), view.leds);
  drawCamera(view);
}

// -- following the game --------------------------------------------------------------------------

async function refresh() {
  if (page.fetching) {
    page.again = true;
    return;
  }
  page.fetching = true;
  try {
    do {
      page.again = false;
      const answer = await fetch("/api/state", { cache: "no-store" });
      if (answer.ok) render(await answer.json());
    } while (page.again);
  } finally {
    page.fetching = false;
  }
}

function follow() {
  const source = new EventSource("/events");
  const link = $("link");
  source.onopen = () => { link.dataset.state = "live"; link.textContent = "live"; };
  source.onerror = () => { link.dataset.state = "lost"; link.textContent = "reconnecting…"; };
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "state") {
      page.liftedAt = 0; // a whole state starts afresh (event ids restart with the server)
      render(event);
    } else if (event.type === "leds") drawLeds($("leds"), event);
    else if (event.type === "lifted") {
      keepLifted(event, event.id);
      drawHeld();
    } else if (SESSION_EVENTS.has(event.type)) {
      if (SETTLING_EVENTS.has(event.type)) {
        keepLifted(null, event.id);
        drawHeld();
      }
      refresh();
    }
  };
}

// -- controls -------------------------------------------------------------------------------------

function say(words, bad = false) {
  const message = $("message");
  if (!message) return;
  message.textContent = words;
  message.classList.toggle("bad", bad);
}

function showLogin(state) {
  page.loggedIn = state.logged_in;
  page.csrf = state.csrf;
  $("login").hidden = state.logged_in || !state.pin_set;
  $("actions").hidden = !state.logged_in;
  if (!state.pin_set) say("Controls are off: no PIN is set.");
  if (state.logged_in && !page.games.length) loadGames();
  if (page.view) drawAlerts(page.view);
}

// Sends a control; a refused CSRF token (say, after a server restart) is renewed and sent once more.
async function post(path, body, retry = true) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": page.csrf },
    body: JSON.stringify(body),
  });
  if (answer.status === 403 && retry) {
    await syncSession();
    return post(path, body, false);
  }
  const data = await answer.json().catch(() => ({ error: `the server answered ${answer.status}` }));
  return { ok: answer.ok, status: answer.status, data };
}

async function syncSession() {
  const answer = await fetch("/api/session", { cache: "no-store" });
  showLogin(await answer.json());
}

async function control(path, body) {
  const { ok, status, data } = await post(path, body);
  if (status === 401) await syncSession();
  if (!ok) return say(data.error || `refused (${status})`, true);
  say("Done.");
  if (!isOlder(data.state, page.view)) render(data.state);
}

// Tells whether a state answered to a control predates the one shown (the live stream came first).
function isOlder(state, shown) {
  return Boolean(shown) && state.event_id < shown.event_id;
}

async function login(event) {
  event.preventDefault();
  const { ok, data } = await post("/api/login", { pin: $("pin").value });
  $("pin").value = "";
  if (!ok) return say(data.error, true);
  showLogin({ ...data, pin_set: true });
  say("Logged in.");
}

async function logout() {
  const { data } = await post("/api/logout", {});
  showLogin({ ...data, pin_set: true });
  say("Logged out.");
}

async function loadGames() {
  const answer = await fetch("/api/games");
  page.games = (await answer.json()).games;
  $("game").replaceChildren(...page.games.map((game) => Object.assign(document.createElement("option"), { value: game.name, textContent: game.name })));
  if (page.view) $("game").value = page.view.game;
  showVariants();
}

function showVariants() {
  const game = page.games.find((g) => g.name === $("game").value);
  const variants = (game && game.variants) || [];
  $("variant").hidden = !variants.length;
  $("variant").replaceChildren(...variants.map((v) => Object.assign(document.createElement("option"), { value: v, textContent: v })));
}

function fillDice() {
  for (const id of ["die1", "die2"]) {
    $(id).replaceChildren(...[1, 2, 3, 4, 5, 6].map((n) => Object.assign(document.createElement("option"), { value: n, textContent: n })));
  }
}

function wireControls() {
  fillDice();
  $("login").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  $("undo").addEventListener("click", () => control("/api/undo", {}));
  $("game").addEventListener("change", showVariants);
  $("new").addEventListener("submit", (event) => {
    event.preventDefault();
    const variant = $("variant").hidden ? null : $("variant").value;
    control("/api/new", { game: $("game").value, variant });
  });
  $("correct").addEventListener("submit", (event) => {
    event.preventDefault();
    control("/api/confirm", { move: $("move").value.trim() });
    $("move").value = "";
  });
  $("roll").addEventListener("submit", (event) => {
    event.preventDefault();
    const [a, b] = $("roll").dataset.letters || "bg";
    control("/api/roll", { roll: `roll:${a}${$("die1").value}${b}${$("die2").value}` });
  });
}

async function start() {
  $("camera").addEventListener("load", () => { $("camera").hidden = false; $("no-camera").hidden = true; });
  $("camera").addEventListener("error", () => { $("camera").hidden = true; $("no-camera").hidden = false; });
  if (LIVE) {
    wireControls();
    await syncSession();
  }
  follow();
}

start();

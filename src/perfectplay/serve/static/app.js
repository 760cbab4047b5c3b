// perfectplay serve: the page. It keeps the game (the server is stateless) and asks the
// JSON API for every value; it computes none itself. No outside request, no inline code.
"use strict";

const $ = (id) => document.getElementById(id);

const S = {
  games: [],
  game: null,        // the served game's description (GET /api/games)
  node: null,        // where play stands: {type: "position", state, player, pos} or
                     // {type: "chance", state, player, chances, note}
  log: [],           // decisions: {player, state, action, value, regret, number, best, isBest,
                     //             forced (the only option: no choice)}
  snaps: [],         // undo stack: copies of {node, log} where a person acts
  at: -1,            // the snapshot shown
  busy: false,
  then: null,        // a new game asked for while an answer was awaited: started after it
  typed: false,      // the game started from a state typed in (not the game's start)
};

// ---- the API ------------------------------------------------------------------------

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: {"content-type": "application/json"},
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

const gamePath = (what) => `/api/games/${encodeURIComponent(S.game.id)}/${what}`;
const optionsOf = (state) => api(gamePath("options"), {state});
const applyTo = (state, action) => api(gamePath("apply"), {state, action});

function showError(error) {
  const bar = $("error");
  bar.textContent = error ? String(error.message || error) : "";
  bar.hidden = !error;
}

async function guarded(work) {
  if (S.busy) return;
  S.busy = true;
  showError(null);
  // Say so when an answer takes a while (a rule set solved on first use: seconds).
  const slow = setTimeout(() => {
    const solving = S.game && S.game.solved === false;
    $("busy").textContent = solving ? "Solving these rules (about 10 s)..." : "Working...";
    $("busy").hidden = false;
  }, 300);
  try {
    await work();
  } catch (error) {
    showError(error);
  } finally {
    clearTimeout(slow);
    $("busy").hidden = true;
    if (S.game && S.game.solved === false) S.game.solved = true;
    S.busy = false;
    render();
  }
  if (S.then) {
    const next = S.then;
    S.then = null;
    next();
  }
}

// A new game (another game chosen, another mode, New) asked for while an answer is
// awaited (a rule set solved on first use: seconds) starts when it comes, rather than
// being dropped while the page already shows the other game's name.
function afterwards(work) {
  if (S.busy) S.then = work;
  else work();
}

// ---- who plays ----------------------------------------------------------------------

const twoPlayers = () => S.game && S.game.players === 2;

function computerPlays(player) {
  if (!twoPlayers()) return false;
  const mode = $("mode").value;
  return (mode === "first" && player === 1) || (mode === "second" && player === 0);
}

// The value of a number for the first player (values are the mover's).
const forFirst = (number, player) =>
  number === null || number === undefined ? null : player === 1 ? 1 - number : number;

// ---- moving through the game --------------------------------------------------------

function snapshot() {
  S.snaps = S.snaps.slice(0, S.at + 1);
  S.snaps.push(JSON.parse(JSON.stringify({node: S.node, log: S.log})));
  S.at = S.snaps.length - 1;
}

async function goto(state, player) {
  const pos = await optionsOf(state);
  if ((pos.chances || pos.roll) && !pos.over) {
    await chanceStep(pos.state, player, pos.chances || pos.roll, "Roll the dice.", pos);
    return;
  }
  S.node = {type: "position", state: pos.state, player, pos};
  if (!pos.over && computerPlays(player) && pos.options.length) {
    await decide(pos.options[0]);  // best first; a lost game is prolonged (slowest loss first)
    return;
  }
  snapshot();
}

async function decide(option) {
  const node = S.node;
  S.log.push({
    player: node.player, state: node.state, action: option.action,
    value: option.value, regret: option.regret, number: node.pos.number,
    best: node.pos.options[0].value, isBest: option.best, forced: node.pos.options.length === 1,
  });
  const next = await applyTo(node.state, option.action);
  if (next.cost !== undefined) S.log[S.log.length - 1].cost = next.cost;
  if (next.state !== undefined) {
    await goto(next.state, next.passes ? 1 - node.player : node.player);
  } else {
    await chanceStep(node.state, node.player, next.chances || next.roll,
                     `After ${option.action}:`, null);
  }
}

// A roll: `chances` lists the outcomes with their probabilities, or (for many dice)
// says which dice to roll: {template, dice: [{die, faces}]}, each face equally likely.
async function chanceStep(state, player, chances, note, pos) {
  if (Array.isArray(chances) && chances.length === 1) {
    await resolve(chances[0], player);
    return;
  }
  S.node = {type: "chance", state, player, chances, note, pos};
  if ($("byhand").checked && !computerPlays(player)) {
    snapshot();
    return;
  }
  await resolve(pick(chances), player);
}

function pick(chances) {
  if (!Array.isArray(chances)) {
    const faces = chances.dice.map((d) => d.faces[Math.floor(Math.random() * d.faces.length)]);
    return {state: fillTemplate(chances, faces), passes: false};
  }
  let r = Math.random();
  for (const c of chances) {
    r -= c.probability;
    if (r < 0) return c;
  }
  return chances[chances.length - 1];
}

// The roll's symbols: the kept ones where they are, `faces` (one per rolled die) for the rest.
function fillTemplate(roll, faces) {
  let k = 0;
  return [...roll.template].map((c) => (c === "?" ? faces[k++] : c)).join("");
}

async function resolve(chance, player) {
  await goto(chance.state, chance.passes ? 1 - player : player);
}

// A new game from the start, or from a typed state with `player` to move (a state alone
// does not say whose turn it is): the perfect opponent answers at once if it is its move.
async function newGame(state, player = 0) {
  S.log = [];
  S.snaps = [];
  S.at = -1;
  S.typed = Boolean(state) && state !== S.game.start;
  const start = state || S.game.start;
  if (start === null) {
    S.node = null;
    return;
  }
  await goto(start, state ? player : 0);
}

function restore(index) {
  const snap = JSON.parse(JSON.stringify(S.snaps[index]));
  S.at = index;
  S.node = snap.node;
  S.log = snap.log;
}

function undo() {
  if (S.busy) return;  // the game is still moving: undo what it reaches, not half of it
  // Back to the previous moment where a person acted (the computer's moves are replayed
  // by going back past them).
  if (S.at > 0) restore(S.at - 1);
  render();
}

function redo() {
  if (S.busy) return;
  if (S.at < S.snaps.length - 1) restore(S.at + 1);
  render();
}

// ---- the record ---------------------------------------------------------------------

function recordText() {
  const lines = [`# perfectplay serve record: ${S.game.id}`];
  const who = (p) => (twoPlayers() ? `P${p + 1} ` : "");
  for (const d of S.log) lines.push(`${who(d.player)}${d.state} > ${d.action}`);
  // A roll still to make after a choice is where that choice's line left off.
  const rolling = S.node && S.node.type === "chance" && !S.node.pos;
  if (S.node && !rolling) lines.push(`${who(S.node.player)}${S.node.state}`);
  return lines.join("\n");
}

function parseRecordLine(line) {
  let player = 0;
  const m = /^P([12]) (.*)$/.exec(line);
  if (m) {
    player = Number(m[1]) - 1;
    line = m[2];
  }
  const cut = line.lastIndexOf(" > ");
  if (cut < 0) return {player, state: line.trim(), action: null};
  return {player, state: line.slice(0, cut).trim(), action: line.slice(cut + 3).trim()};
}

// Where choosing `action` in `state` (with `player` to move) may lead: the positions a
// person decides in next, each with its mover, after the rolls in between. A roll of many
// dice (Alea) is a template matched symbol by symbol instead of listed.
async function successors(state, action, player) {
  const next = await applyTo(state, action);
  const outcomes = (chances, mover) => (Array.isArray(chances)
    ? chances.map((c) => ({state: c.state, player: c.passes ? 1 - mover : mover}))
    : [{roll: chances, player: mover}]);
  let frontier = next.state !== undefined
    ? [{state: next.state, player: next.passes ? 1 - player : player}]
    : outcomes(next.chances || next.roll, player);
  const found = [...frontier];
  // A state reached is itself a roll to make (Ur's throw, a Yahtzee card between turns):
  // its outcomes follow too. A few levels, and only where few outcomes are to be asked.
  for (let depth = 0; depth < 3 && frontier.length <= 8; depth++) {
    const more = [];
    for (const c of frontier) {
      if (c.roll) continue;
      const pos = await optionsOf(c.state);
      if ((pos.chances || pos.roll) && !pos.over) more.push(...outcomes(pos.chances || pos.roll, c.player));
    }
    found.push(...more);
    frontier = more;
  }
  return found;
}

function reaches(successor, state) {
  if (!successor.roll) return successor.state === state;
  const {template, dice} = successor.roll;
  if (state.length !== template.length) return false;
  let k = 0;
  return [...template].every((c, i) => (c === "?" ? [...dice[k++].faces].includes(state[i]) : c === state[i]));
}

// A record pasted back: every line's state must follow from the line before it (its
// action, then the dice), with the right player to move; anything else is refused in
// words and the game on the page is left as it was.
async function loadRecord(text) {
  const kept = {game: S.game, node: S.node, log: S.log, snaps: S.snaps, at: S.at, typed: S.typed};
  try {
    await readRecord(text);
  } catch (error) {
    Object.assign(S, kept);
    $("game").value = S.game.id;
    throw error;
  }
}

async function readRecord(text) {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const head = /^# perfectplay serve record: (\S+)/.exec(text.trim());
  if (head && head[1] !== S.game.id) {
    const other = S.games.find((g) => g.id === head[1]);
    if (!other) throw new Error(`this record is of ${head[1]}, which is not served here`);
    S.game = other;
    $("game").value = other.id;
  }
  if (!lines.length) throw new Error("the record is empty");
  S.log = [];
  S.snaps = [];
  S.at = -1;
  S.typed = false;  // a record is a game from its first line, as played
  let before = null;  // the line before: {state, player, action}
  for (const [n, line] of lines.entries()) {
    const {player, state, action} = parseRecordLine(line);
    const pos = await optionsOf(state);
    if (before !== null) {
      const next = await successors(before.state, before.action, before.player);
      const twice = twoPlayers();
      if (!next.some((c) => reaches(c, pos.state) && (!twice || c.player === player))) {
        const who = twice ? `P${player + 1} ` : "";
        throw new Error(`record, line ${n + 1}: ${who}${pos.state} cannot follow ` +
                        `${before.action} in ${before.state}`);
      }
    }
    S.node = {type: "position", state: pos.state, player, pos};
    if (action === null) break;
    const option = (pos.options || []).find((o) => o.action === action);
    if (!option) throw new Error(`record: no option ${JSON.stringify(action)} in ${state}`);
    snapshot();
    S.log.push({
      player, state: pos.state, action, value: option.value, regret: option.regret,
      number: pos.number, best: pos.options[0].value, isBest: option.best,
      forced: pos.options.length === 1,
    });
    before = {state: pos.state, player, action};
  }
  const last = parseRecordLine(lines[lines.length - 1]);
  if (last.action === null) {
    await goto(S.node.state, last.player);
    return;
  }
  // The record ends with a choice whose roll is still to come: make that choice again.
  const entry = S.log.pop();
  S.snaps.pop();
  S.at = S.snaps.length - 1;
  await decide(S.node.pos.options.find((o) => o.action === entry.action));
}

// ---- drawing ------------------------------------------------------------------------

function fmt(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") {
    const r = value.remoteness === null ? "" : ` in ${value.remoteness}`;
    return `${value.outcome}${r}`;
  }
  if (typeof value === "string") return value;
  if (S.game.objective.includes("chance")) return `${(100 * value).toFixed(2)}%`;
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}

// The loss of an option that is not the best: its regret, and for a game without dice,
// where a slower loss or a quicker win is the best at no regret in the outcome, the
// best's number of moves ("-0 (best in 4)", not a bare "-0.0000").
function lossOf(value, best, regret) {
  const moves = value && best && typeof value === "object" && typeof best === "object" &&
    regret === 0 && best.remoteness !== null && value.remoteness !== best.remoteness;
  return moves ? `0 (best in ${best.remoteness})` : fmtLoss(regret);
}

// Whether a decision of the log was the best (kept games from before `isBest`: none lost).
const wasBest = (d) => (d.isBest === undefined ? d.regret === 0 : d.isBest);

function fmtLoss(regret) {
  if (typeof regret === "string") return regret;
  if (S.game.objective.includes("chance")) return `${(100 * regret).toFixed(2)}%`;
  return regret.toFixed(4);
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function render() {
  draw();
  keep();
}

// ---- a reload keeps the game ----------------------------------------------------------

// The game is kept in this tab's sessionStorage after every change, so that a reload
// (a slip of the finger, a phone that dropped the page) resumes it, undo included; another
// tab has its own.
const KEPT = "perfectplay-serve-game";

function keep() {
  if (!S.game || S.busy) return;  // half a move is not kept: the move's end keeps it
  const url = new URL(location.href);  // the address names the game played (a reload's)
  if (url.searchParams.get("game") !== S.game.id) {
    url.searchParams.set("game", S.game.id);
    history.replaceState(null, "", url);
  }
  const game = {
    game: S.game.id, mode: $("mode").value, hide: $("hide").checked, byhand: $("byhand").checked,
    node: S.node, log: S.log, snaps: S.snaps, at: S.at, typed: S.typed,
  };
  try {
    sessionStorage.setItem(KEPT, JSON.stringify(game));
  } catch (error) {
    // Too much for the storage (a long game's undo history): the game without its undo.
    try {
      const now = {node: S.node, log: S.log};
      sessionStorage.setItem(KEPT, JSON.stringify({...game, snaps: [now], at: 0}));
    } catch (again) {
      sessionStorage.removeItem(KEPT);
    }
  }
}

function kept() {
  try {
    const game = JSON.parse(sessionStorage.getItem(KEPT) || "null");
    return game && S.games.some((g) => g.id === game.game) ? game : null;
  } catch (error) {
    return null;
  }
}

// Resume a kept game, its position asked again (a server started since with other
// games answers for this one or the game starts anew).
function resume(game) {
  S.game = S.games.find((g) => g.id === game.game);
  $("game").value = S.game.id;
  $("mode").value = game.mode;
  $("hide").checked = game.hide;
  $("byhand").checked = game.byhand;
  guarded(async () => {
    try {
      if (game.node) await optionsOf(game.node.state);
    } catch (error) {
      await newGame();
      return;
    }
    Object.assign(S, {node: game.node, log: game.log, snaps: game.snaps, at: game.at,
                      typed: game.typed});
  });
}

function draw() {
  const hide = $("hide").checked;
  $("undo").disabled = S.at <= 0;
  $("redo").disabled = S.at >= S.snaps.length - 1;
  $("mode-box").hidden = !twoPlayers();
  $("typed-player").hidden = !twoPlayers();
  const node = S.node;
  const game = S.game;
  if (!game) return;
  $("about").textContent = `${game.title}: ${game.objective}` +
    (game.playable ? "" : " (a table without its model: positions only)");
  $("notation").textContent = `State: ${game.notation}`;
  $("options").replaceChildren();
  $("dice").replaceChildren();
  $("chance").hidden = true;
  $("card").hidden = true;
  if (!node) {
    $("turn").textContent = "Type a state to start";
    $("state").textContent = "";
    $("value").textContent = "";
    drawReview(hide);
    return;
  }
  const who = twoPlayers()
    ? `Player ${node.player + 1}${computerPlays(node.player) ? " (perfect opponent)" : ""}`
    : "You";
  $("state").textContent = node.state +
    (twoPlayers() && S.game.kind === "stochastic" ? "  (as seen by the player to move)" : "");
  const pos = node.pos;
  if (pos && pos.dice) drawDice(pos.dice);
  if (pos && pos.card) drawCard(pos.card);
  if (node.type === "chance") {
    $("turn").textContent = `${who}: roll`;
    $("value").textContent = "";
    drawChance(node);
  } else if (pos.over) {
    $("turn").textContent = "Game over";
    $("value").textContent = twoPlayers() ? outcomeText(node.player, pos.number)
      : pos.word ? spelt(pos.word) : finalText(pos);
  } else {
    $("turn").textContent = `${who} to choose` +
      (pos.rolls_left !== undefined ? ` (${counted(pos.rolls_left, "rolls")} left)` : "");
    $("value").textContent = hide ? "" : `Value: ${fmt(pos.value)}`;
    drawOptions(pos, hide);
  }
  drawReview(hide);
}

// The end of a one-player game: a cost's total is what the rolls played cost (the value
// at a goal is the cost still to come, 0); anything else its final value.
function finalText(pos) {
  if (S.game.measure !== "cost") return `Final: ${fmt(pos.value)}`;
  const used = S.log.reduce((total, d) => total + (d.cost || 0), 0);
  const n = Number.isInteger(used) ? String(used) : used.toFixed(4);
  return `Total: ${counted(n, S.game.unit)}` + (S.typed ? " (from the state typed)" : "");
}

// Alea Iacta Est's end: the word, and the rolls it took (the first, then one after each
// keep; from a state typed, the keeps since).
function spelt(word) {
  const rolls = S.log.length + (S.typed ? 0 : 1);
  return `The dice spell ${word} in ${counted(rolls, "rolls")}` +
    (S.typed ? " (from the state typed)" : "");
}

// "1 roll", "2 rolls": a count with its unit (given in the plural).
function counted(n, plural) {
  return `${n} ${String(n) === "1" && plural.endsWith("s") ? plural.slice(0, -1) : plural}`;
}

// The end of a two-player game in words; values are the mover's (1 a win, 0 a loss).
function outcomeText(mover, number) {
  if (number === 1) return `Player ${mover + 1} wins`;
  if (number === 0) return `Player ${2 - mover} wins`;
  if (number === 0.5) return "Neither wins: a tie or a draw";
  return `Player ${mover + 1}'s winning chance: ${fmt(number)}`;
}

function drawDice(dice) {
  for (const d of dice) $("dice").append(el("span", {class: "die"}, d));
}

function drawCard(card) {
  const rows = [el("tr", {}, el("th", {}, "box"), el("th", {}, "points"))];
  const upper = S.game.upper_boxes || [];
  for (const box of S.game.boxes || []) {
    const filled = Object.prototype.hasOwnProperty.call(card.filled, box);
    const pts = filled ? (card.filled[box] === null ? "filled" : String(card.filled[box])) : "";
    rows.push(el("tr", {class: filled ? "filled" : ""}, el("td", {}, box), el("td", {}, pts)));
    // What the boxes alone do not show, so that they add up to the score: the upper
    // bonus under the upper boxes, the extra n-of-a-kinds above the score.
    if (box === upper[upper.length - 1] && card.bonus_at !== null && card.bonus_at !== undefined) {
      const got = card.upper_bonus ? String(card.upper_bonus) : `upper ${card.upper} of ${card.bonus_at}`;
      rows.push(el("tr", {class: "bonus"}, el("td", {}, "upper bonus"), el("td", {}, got)));
    }
  }
  if (card.extra_bonus) {
    rows.push(el("tr", {class: "bonus"}, el("td", {}, "extra bonuses"),
                 el("td", {}, String(card.extra_bonus))));
  }
  rows.push(el("tr", {class: "total"}, el("td", {}, "score"), el("td", {}, String(card.score))));
  $("card").replaceChildren(...rows);
  $("card").hidden = false;
}

function drawOptions(pos, hide) {
  const mine = !computerPlays(S.node.player);
  // Best first gives the best away: with hints hidden, the game's own order (the
  // server's `order`: moves as the model lists them, keeps by their dice, then boxes).
  const shown = hide && pos.order ? pos.order.map((i) => pos.options[i]) : pos.options;
  shown.forEach((o, i) => {
    const cls = ["option"];
    if (o.best && !hide) cls.push("best");
    const button = el(
      "button",
      {class: cls.join(" "), "data-action": o.action, role: "listitem",
       title: i < 9 ? `key ${i + 1}` : ""},
      el("span", {class: "key"}, i < 9 ? String(i + 1) : ""),
      el("span", {class: "label"}, o.action),
      el("span", {class: "num"}, hide ? "" : fmt(o.value)),
      el("span", {class: "loss"}, hide ? "" : o.best ? "best" : `-${lossOf(o.value, pos.options[0].value, o.regret)}`),
    );
    button.disabled = !mine;
    button.addEventListener("click", () => choose(o));
    $("options").append(button);
  });
}

function choose(option) {
  if (!S.game.playable) {
    showError(new Error("this table was loaded without its model: it answers positions only"));
    return;
  }
  guarded(() => decide(option));
}

function drawChance(node) {
  $("chance").hidden = false;
  $("chance-text").textContent = node.note;
  const hand = $("hand");
  hand.replaceChildren();
  if (!$("byhand").checked) return;
  if (!Array.isArray(node.chances)) {
    // One choice per die rolled, from that die's faces.
    const roll = node.chances;
    const selects = roll.dice.map((d) => {
      const s = el("select", {"aria-label": `die ${d.die}`, class: "set-die"});
      for (const f of [...new Set(d.faces)]) s.append(el("option", {value: f}, f));
      hand.append(s);
      return s;
    });
    const set = el("button", {id: "set-dice"}, "Set these dice");
    set.addEventListener("click", () => {
      const state = fillTemplate(roll, selects.map((x) => x.value));
      guarded(() => resolve({state, passes: false}, node.player));
    });
    hand.append(set);
    return;
  }
  const dice = node.chances[0].dice !== undefined;
  if (dice) {
    // Set the rolled dice by hand: one choice per die rolled.
    const n = node.chances[0].label.split(" ").filter(Boolean).length;
    const selects = [];
    for (let i = 0; i < n; i++) {
      const s = el("select", {"aria-label": `die ${i + 1}`, class: "set-die"});
      for (const f of S.game.faces) s.append(el("option", {value: f}, f));
      selects.push(s);
      hand.append(s);
    }
    const set = el("button", {id: "set-dice"}, "Set these dice");
    set.addEventListener("click", () => {
      const faces = S.game.faces;
      const want = selects.map((s) => s.value)
        .sort((a, b) => faces.indexOf(a) - faces.indexOf(b)).join(" ");
      const found = node.chances.find((c) => c.label === want);
      if (!found) showError(new Error(`no roll shows ${want}`));
      else guarded(() => resolve(found, node.player));
    });
    hand.append(set);
  } else {
    for (const c of node.chances) {
      // Integer weights where the game gives them (Ur's throws: 1, 4, 6, 4, 1 of 16).
      const chance = c.weight !== undefined ? `${c.weight}/${c.of}`
        : `${(100 * c.probability).toFixed(1)}%`;
      const b = el("button", {class: "outcome"}, `${c.label} (${chance})`);
      b.addEventListener("click", () => guarded(() => resolve(c, node.player)));
      hand.append(b);
    }
  }
}

function drawReview(hide) {
  const list = $("history");
  list.replaceChildren();
  const totals = [0, 0];
  const counts = [0, 0];
  for (const d of S.log) {
    // A forced move (the only option: Ur's pass, the last box) is no choice: listed, but
    // not counted in the decisions whose mean loss measures a player.
    if (!d.forced) {
      totals[d.player] += typeof d.regret === "number" ? d.regret : 0;
      counts[d.player] += 1;
    }
    const who = twoPlayers() ? `P${d.player + 1}: ` : "";
    const text = `${who}${d.action}` + (hide ? "" : d.forced ? " (forced)" : wasBest(d) ? " (best)" : ` (loss ${lossOf(d.value, d.best, d.regret)})`);
    list.append(el("li", {class: wasBest(d) ? "good" : "lost", title: d.state}, text));
  }
  const parts = [];
  for (const p of twoPlayers() ? [0, 1] : [0]) {
    if (!counts[p]) continue;
    const who = twoPlayers() ? `Player ${p + 1}: ` : "";
    parts.push(`${who}${counted(counts[p], "decisions")}, total loss ${fmtLoss(totals[p])}, ` +
               `mean ${fmtLoss(totals[p] / counts[p])}`);
  }
  $("totals").textContent = hide ? "(hints hidden)" : parts.join("; ");
  drawChart(hide);
  if (document.activeElement !== $("record")) $("record").value = S.game ? recordText() : "";
}

function drawChart(hide) {
  const svg = $("chart");
  svg.replaceChildren();
  if (hide) return;
  const ns = "http://www.w3.org/2000/svg";
  const points = S.log.map((d) => forFirst(d.number, d.player));
  if (S.node && S.node.pos) points.push(forFirst(S.node.pos.number, S.node.player));
  const ys = points.filter((v) => v !== null);
  if (ys.length < 1) return;
  let lo = Math.min(...ys);
  let hi = Math.max(...ys);
  if (twoPlayers()) [lo, hi] = [0, 1];
  if (hi - lo < 1e-9) [lo, hi] = [lo - 1, hi + 1];
  const W = 400, H = 160, pad = 28;
  const x = (i) => pad + (points.length > 1 ? (i * (W - 2 * pad)) / (points.length - 1) : 0);
  const y = (v) => H - pad / 2 - ((v - lo) * (H - pad)) / (hi - lo);
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  mk("line", {x1: pad, y1: y(lo), x2: W - pad, y2: y(lo), class: "axis"});
  mk("text", {x: 2, y: y(hi) + 4, class: "tick"}, fmt(hi));
  mk("text", {x: 2, y: y(lo), class: "tick"}, fmt(lo));
  const path = points.map((v, i) => (v === null ? null : `${x(i)},${y(v)}`)).filter(Boolean);
  mk("polyline", {points: path.join(" "), class: "line"});
  points.forEach((v, i) => {
    if (v === null) return;
    const lost = i < S.log.length && !wasBest(S.log[i]);
    const dot = mk("circle", {cx: x(i), cy: y(v), r: 3, class: lost ? "dot lost" : "dot"});
    const t = document.createElementNS(ns, "title");
    t.textContent = i < S.log.length ? `${S.log[i].action}: ${fmt(v)}` : `now: ${fmt(v)}`;
    dot.append(t);
  });
}

// ---- wiring -------------------------------------------------------------------------

function selectGame(id) {
  afterwards(() => {
    S.game = S.games.find((g) => g.id === id);
    $("game").value = id;
    $("byhand").parentElement.hidden = false;
    guarded(() => newGame());
  });
}

function onKey(event) {
  const t = event.target;
  const typing = t && ((t.tagName === "INPUT" && t.type !== "checkbox") ||
                       t.tagName === "TEXTAREA" || t.tagName === "SELECT");
  if (typing) return;
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z") { undo(); event.preventDefault(); return; }
  if ((event.ctrlKey || event.metaKey) && key === "y") { redo(); event.preventDefault(); return; }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (/^[1-9]$/.test(key)) {
    const buttons = $("options").querySelectorAll("button.option");
    const b = buttons[Number(key) - 1];
    if (b && !b.disabled) b.click();
  } else if (key === "r" && !$("chance").hidden && !$("roll").disabled) {
    $("roll").click();
  } else if (key === "u") {
    undo();
  } else if (key === "y") {
    redo();
  } else if (key === "h") {
    $("hide").checked = !$("hide").checked;
    render();
  } else if (key === "n") {
    afterwards(() => guarded(() => newGame()));
  }
}

async function init() {
  $("game").addEventListener("change", (e) => selectGame(e.target.value));
  $("mode").addEventListener("change", () => afterwards(() => guarded(() => newGame())));
  $("hide").addEventListener("change", render);
  $("byhand").addEventListener("change", render);
  $("new").addEventListener("click", () => afterwards(() => guarded(() => newGame())));
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("roll").addEventListener("click", () => {
    const node = S.node;
    if (node && node.type === "chance") guarded(() => resolve(pick(node.chances), node.player));
  });
  $("jump").addEventListener("submit", (e) => {
    e.preventDefault();
    const typed = $("typed").value;
    const player = twoPlayers() ? Number($("typed-player").value) : 0;
    guarded(async () => {
      const parsed = await api(gamePath("parse"), {state: typed});
      await newGame(parsed.state, player);
    });
  });
  $("copy").addEventListener("click", async () => {
    $("record").select();
    try {
      await navigator.clipboard.writeText($("record").value);
    } catch (error) {
      document.execCommand("copy");
    }
  });
  $("paste").addEventListener("click", () => {
    const text = $("record").value;
    $("record").blur();
    guarded(() => loadRecord(text));
  });
  document.addEventListener("keydown", onKey);
  try {
    S.games = (await api("/api/games")).games;
  } catch (error) {
    showError(error);
    return;
  }
  for (const g of S.games) $("game").append(el("option", {value: g.id}, g.title));
  const wanted = new URLSearchParams(location.search).get("game");
  const resumed = kept();
  if (resumed && (!wanted || wanted === resumed.game)) {
    resume(resumed);
    return;
  }
  const first = S.games.find((g) => g.id === wanted) || S.games[0];
  $("game").value = first.id;
  selectGame(first.id);
}

document.addEventListener("DOMContentLoaded", init);

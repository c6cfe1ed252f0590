// Mahjong tiles drawn as SVG by the project (spec/DESIGN.md §4): the Unicode mahjong glyphs are
// missing from common fonts, so every face is built here from shapes and CJK text.
//
//   parseTiles("123m EES")  -> ["1m", "2m", "3m", "E", "E", "S"]
//   tileSVG("5p")           -> "<svg …>" (viewBox 60×80: a face with a green backing strip)
//   tileEl("5p", {w: 40})   -> a <span class="tile"> holding that SVG, 40 px wide
//
// Notation (spec/DESIGN.md): 1m..9m 万, 1p..9p 筒, 1s..9s 条, E S W N winds, C 中, F 發, P 白,
// 1h..8h flowers 春夏秋冬梅兰竹菊.  Ranks share a suffix: "123m456p".

const SUITS = "mps";
const HONOURS = "ESWNCFP";

export function parseTiles(text) {
  const out = [];
  let digits = "";
  for (const ch of text || "") {
    if (/\s/.test(ch)) continue;
    if (ch >= "0" && ch <= "9") digits += ch;
    else if (SUITS.includes(ch) || ch === "h") {
      for (const d of digits) out.push(d + ch);
      digits = "";
    } else if (HONOURS.includes(ch)) out.push(ch);
  }
  return out;
}

// Sort key: 万 筒 条, winds, dragons, flowers.
export function tileOrder(code) {
  if (!code) return 999;
  if (code.length === 2) {
    const suit = "mpsh".indexOf(code[1]);
    return suit * 10 + Number(code[0]);
  }
  return 100 + HONOURS.indexOf(code);
}

// Wilds first (the usual place for 财神), then by suit and rank.
export function sortTiles(tiles, wilds = []) {
  const wild = new Set(wilds);
  return [...tiles].sort((a, b) => (wild.has(b) - wild.has(a)) || tileOrder(a) - tileOrder(b));
}

const NUMERALS = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONOUR_FACES = { E: "東", S: "南", W: "西", N: "北", C: "中", F: "發", P: "白" };
const FLOWER_FACES = ["", "春", "夏", "秋", "冬", "梅", "兰", "竹", "菊"];
const SUIT_NAMES = { m: "万", p: "筒", s: "条" };

// Words for titles and screen readers: "五万", "东风", "红中" …
const HONOUR_NAMES = { E: "东风", S: "南风", W: "西风", N: "北风", C: "红中", F: "发财", P: "白板" };
const HONOUR_NAMES_EN = { E: "East", S: "South", W: "West", N: "North", C: "Red", F: "Green", P: "White" };
const SUIT_NAMES_EN = { m: "characters", p: "dots", s: "bamboo" };

export function tileName(code, lang = "zh") {
  if (!code) return lang === "en" ? "hidden tile" : "暗牌";
  if (HONOURS.includes(code)) return lang === "en" ? HONOUR_NAMES_EN[code] : HONOUR_NAMES[code];
  const rank = Number(code[0]);
  if (code[1] === "h") return lang === "en" ? `flower ${FLOWER_FACES[rank]}` : FLOWER_FACES[rank];
  return lang === "en" ? `${rank} ${SUIT_NAMES_EN[code[1]]}` : NUMERALS[rank] + SUIT_NAMES[code[1]];
}

const INK = "#1b2430";
const RED = "#c0262d";
const GREEN = "#17793f";
const BLUE = "#1d4f9c";
const IVORY = "#fbf7ea";
const FONT = "'Noto Serif CJK SC','Noto Serif SC','Source Han Serif SC','Songti SC','SimSun','Noto Sans CJK SC',serif";

function text(x, y, size, fill, s, extra = "") {
  return `<text x="${x}" y="${y}" font-size="${size}" fill="${fill}" font-family="${FONT}" font-weight="700" text-anchor="middle" dominant-baseline="central" ${extra}>${s}</text>`;
}

// ---------------------------------------------------------------- 筒: dots
function dot(cx, cy, r, color) {
  return (
    `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${color}"/>` +
    `<circle cx="${cx}" cy="${cy}" r="${(r * 0.7).toFixed(2)}" fill="${IVORY}"/>` +
    `<circle cx="${cx}" cy="${cy}" r="${(r * 0.5).toFixed(2)}" fill="${color}"/>` +
    `<circle cx="${cx}" cy="${cy}" r="${(r * 0.16).toFixed(2)}" fill="${IVORY}"/>`
  );
}

function bigDot() {
  const petals = [];
  for (let i = 0; i < 12; i++) {
    const a = (i * Math.PI) / 6;
    petals.push(`<circle cx="${(30 + 16.5 * Math.cos(a)).toFixed(2)}" cy="${(38 + 16.5 * Math.sin(a)).toFixed(2)}" r="2.1" fill="${IVORY}"/>`);
  }
  return (
    `<circle cx="30" cy="38" r="23" fill="${GREEN}"/>` +
    `<circle cx="30" cy="38" r="20" fill="${IVORY}"/>` +
    `<circle cx="30" cy="38" r="19" fill="${BLUE}"/>` +
    petals.join("") +
    `<circle cx="30" cy="38" r="12.5" fill="${IVORY}"/>` +
    `<circle cx="30" cy="38" r="10" fill="${RED}"/>` +
    `<circle cx="30" cy="38" r="5" fill="${IVORY}"/>` +
    `<circle cx="30" cy="38" r="2.5" fill="${RED}"/>`
  );
}

const DOTS = {
  2: [[30, 22, 11.5, GREEN], [30, 54, 11.5, BLUE]],
  3: [[16, 16, 9.5, BLUE], [30, 38, 9.5, RED], [44, 60, 9.5, GREEN]],
  4: [[18, 22, 10.5, BLUE], [42, 22, 10.5, GREEN], [18, 54, 10.5, GREEN], [42, 54, 10.5, BLUE]],
  5: [[17, 18, 9, BLUE], [43, 18, 9, GREEN], [30, 38, 9, RED], [17, 58, 9, GREEN], [43, 58, 9, BLUE]],
  6: [[19, 16, 8.5, GREEN], [41, 16, 8.5, GREEN], [19, 41, 8.5, RED], [41, 41, 8.5, RED], [19, 60, 8.5, RED], [41, 60, 8.5, RED]],
  7: [
    [14, 12, 6.8, GREEN], [30, 19, 6.8, GREEN], [46, 26, 6.8, GREEN],
    [19, 44, 8, RED], [41, 44, 8, RED], [19, 61, 8, RED], [41, 61, 8, RED],
  ],
  8: [19, 41].flatMap((x) => [13, 29.5, 46.5, 63].map((y) => [x, y, 7.8, BLUE])),
  9: [[17, BLUE], [38, RED], [59, GREEN]].flatMap(([y, c]) => [15, 30, 45].map((x) => [x, y, 7.4, c])),
};

function dotsFace(rank) {
  if (rank === 1) return bigDot();
  return DOTS[rank].map(([x, y, r, c]) => dot(x, y, r, c)).join("");
}

// ---------------------------------------------------------------- 条: bamboo
function stick(cx, cy, len, color, angle = 0) {
  const top = cy - len / 2;
  const rot = angle ? ` transform="rotate(${angle} ${cx} ${cy})"` : "";
  return (
    `<g${rot}>` +
    `<rect x="${cx - 3.8}" y="${top}" width="7.6" height="${len}" rx="3.4" fill="${color}"/>` +
    `<rect x="${cx - 2}" y="${top + 2.2}" width="1.5" height="${len - 4.4}" rx="0.7" fill="${IVORY}" opacity="0.55"/>` +
    `<rect x="${cx - 4.8}" y="${cy - 1.4}" width="9.6" height="2.8" rx="1.3" fill="${color}"/>` +
    `<rect x="${cx - 3.8}" y="${cy - 0.4}" width="7.6" height="0.8" fill="${IVORY}" opacity="0.85"/>` +
    `<rect x="${cx - 4.8}" y="${top - 0.6}" width="9.6" height="2.4" rx="1.2" fill="${color}"/>` +
    `<rect x="${cx - 4.8}" y="${top + len - 1.8}" width="9.6" height="2.4" rx="1.2" fill="${color}"/>` +
    `</g>`
  );
}

function bird() {
  // 幺鸡: a small green bird on a branch, red crest, long tail.
  return (
    `<path d="M10 62 Q30 57 52 64" stroke="#7a5230" stroke-width="2.4" fill="none" stroke-linecap="round"/>` +
    `<path d="M24 44 Q12 52 6 66 Q16 60 22 58 Q14 66 12 72 Q24 62 30 54 Z" fill="${BLUE}"/>` +
    `<path d="M22 46 Q16 56 14 64" stroke="${IVORY}" stroke-width="1.2" fill="none"/>` +
    `<ellipse cx="32" cy="42" rx="13" ry="10" fill="${GREEN}" transform="rotate(-20 32 42)"/>` +
    `<path d="M26 40 Q34 34 42 42 Q34 48 26 40 Z" fill="#0f5a2c"/>` +
    `<path d="M27 41 Q34 37 40 42" stroke="${IVORY}" stroke-width="1" fill="none"/>` +
    `<circle cx="42" cy="25" r="8" fill="${GREEN}"/>` +
    `<path d="M38 18 Q40 9 44 12 Q45 8 48 12 Q50 9 51 16 Z" fill="${RED}"/>` +
    `<path d="M49 24 L57 26 L49 29 Z" fill="#d99a1e"/>` +
    `<circle cx="44.5" cy="24" r="2.1" fill="${IVORY}"/>` +
    `<circle cx="45" cy="24" r="1.1" fill="${INK}"/>` +
    `<path d="M30 51 L28 60 M36 50 L37 60" stroke="#d99a1e" stroke-width="1.8" stroke-linecap="round"/>`
  );
}

const STICKS = {
  2: [[30, 22, 27, GREEN], [30, 54, 27, BLUE]],
  3: [[30, 22, 27, BLUE], [19, 54, 27, GREEN], [41, 54, 27, GREEN]],
  4: [[19, 22, 27, BLUE], [41, 22, 27, GREEN], [19, 54, 27, GREEN], [41, 54, 27, BLUE]],
  5: [[15, 22, 27, GREEN], [45, 22, 27, BLUE], [30, 38, 27, RED], [15, 54, 27, BLUE], [45, 54, 27, GREEN]],
  6: [15, 30, 45].flatMap((x) => [[x, 22, 27, GREEN], [x, 54, 27, BLUE]]),
  7: [[30, 14, 18, RED], ...[15, 30, 45].flatMap((x) => [[x, 37, 19, GREEN], [x, 60, 19, BLUE]])],
  8: [
    [11, 22, 26, GREEN], [24, 22, 26, GREEN, 24], [36, 22, 26, GREEN, -24], [49, 22, 26, GREEN],
    [11, 54, 26, BLUE], [24, 54, 26, BLUE, -24], [36, 54, 26, BLUE, 24], [49, 54, 26, BLUE],
  ],
  9: [[15, 15], [30, 15], [45, 15], [15, 38], [30, 38], [45, 38], [15, 61], [30, 61], [45, 61]].map(
    ([x, y]) => [x, y, 19, x === 30 ? RED : y === 38 ? BLUE : GREEN],
  ),
};

function bambooFace(rank) {
  if (rank === 1) return bird();
  return STICKS[rank].map(([x, y, l, c, a]) => stick(x, y, l, c, a || 0)).join("");
}

// ---------------------------------------------------------------- 万, honours, flowers
function charactersFace(rank) {
  return text(30, 22, 27, INK, NUMERALS[rank]) + text(30, 55, 30, RED, "萬");
}

function honourFace(code) {
  if (code === "P") {
    // 白板: an empty blue frame.
    return (
      `<rect x="12" y="13" width="36" height="50" rx="3" fill="none" stroke="${BLUE}" stroke-width="3.2"/>` +
      `<rect x="17" y="18" width="26" height="40" rx="1.5" fill="none" stroke="${BLUE}" stroke-width="1.2"/>`
    );
  }
  const fill = code === "C" ? RED : code === "F" ? GREEN : INK;
  return text(30, 39, 40, fill, HONOUR_FACES[code]);
}

function flowerFace(rank) {
  const season = rank <= 4;
  const fill = season ? RED : GREEN;
  const n = ((rank - 1) % 4) + 1;
  const petals = [0, 72, 144, 216, 288]
    .map((a) => `<ellipse cx="47" cy="13" rx="2.2" ry="4.2" fill="${season ? "#e07a2e" : "#c2407a"}" transform="rotate(${a} 47 17)"/>`)
    .join("");
  return (
    petals +
    `<circle cx="47" cy="17" r="2" fill="#f2c230"/>` +
    text(12, 13, 12, season ? BLUE : RED, String(n), 'font-family="sans-serif"') +
    text(30, 46, 34, fill, FLOWER_FACES[rank])
  );
}

function face(code) {
  if (HONOURS.includes(code)) return honourFace(code);
  const rank = Number(code[0]);
  switch (code[1]) {
    case "m": return charactersFace(rank);
    case "p": return dotsFace(rank);
    case "s": return bambooFace(rank);
    case "h": return flowerFace(rank);
    default: return "";
  }
}

// The tile body: an ivory face over a green backing that shows as a strip at the bottom.
const BODY =
  `<rect x="0.6" y="0.6" width="58.8" height="78.8" rx="7" fill="#1b6b43" stroke="#0e3f27" stroke-width="1.2"/>` +
  `<rect x="0.6" y="0.6" width="58.8" height="73.5" rx="7" fill="${IVORY}" stroke="#b5a888" stroke-width="1.2"/>` +
  `<rect x="3" y="2.5" width="54" height="4" rx="2" fill="#ffffff" opacity="0.7"/>`;

const BACK =
  `<rect x="0.6" y="0.6" width="58.8" height="78.8" rx="7" fill="${IVORY}" stroke="#b5a888" stroke-width="1.2"/>` +
  `<rect x="0.6" y="0.6" width="58.8" height="73.5" rx="7" fill="#1f7a4b" stroke="#0e3f27" stroke-width="1.2"/>` +
  `<rect x="6" y="6" width="48" height="62" rx="4" fill="none" stroke="#5fb487" stroke-width="1.4" opacity="0.8"/>` +
  `<path d="M30 18 L42 37 L30 56 L18 37 Z" fill="none" stroke="#5fb487" stroke-width="1.4" opacity="0.8"/>`;

/** The SVG markup of a tile; a falsy code draws the back. */
export function tileSVG(code, { title = true, lang = "zh" } = {}) {
  const inner = code ? BODY + face(code) : BACK;
  const label = title ? `<title>${tileName(code, lang)}</title>` : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 80" role="img" aria-label="${tileName(code, lang)}">${label}${inner}</svg>`;
}

const SHORT_SUITS = { zh: { m: "万", p: "筒", s: "条" }, en: { m: "m", p: "p", s: "s" } };
const SHORT_HONOURS = { zh: { E: "东", S: "南", W: "西", N: "北", C: "中", F: "发", P: "白" } };

/** A short name for a small tag: "5万", "东" (zh) or "5m", "E" (en). */
export function tileShort(code, lang = "zh") {
  if (!code) return "";
  if (HONOURS.includes(code)) return SHORT_HONOURS[lang]?.[code] ?? code;
  return `${code[0]}${SHORT_SUITS[lang]?.[code[1]] ?? code[1]}`;
}

/**
 * A tile element: <span class="tile" data-tile="5p"> with the SVG inside.
 * Options: w (width in px), sideways (lying across: a claimed tile in a meld), wild (the wild's
 * glow and mark), mark (the mark's character: 财, 得, 金), plays (a 白板 standing in for another
 * face: that face's code, shown as a tag), className, lang.
 */
export function tileEl(code, { w = 40, sideways = false, wild = false, mark = "财", plays = null, className = "", lang = "zh" } = {}) {
  const el = document.createElement("span");
  el.className = `tile${sideways ? " sideways" : ""}${wild ? " wild" : ""}${plays ? " stand-in" : ""}${className ? " " + className : ""}`;
  el.style.setProperty("--tw", `${w}px`);
  if (code) el.dataset.tile = code;
  if (wild) el.dataset.mark = mark;
  if (plays) {
    el.dataset.plays = `=${tileShort(plays, lang)}`;
    el.dataset.playsTile = plays;
  }
  el.innerHTML = tileSVG(code, { lang });
  if (plays) el.title = lang === "en" ? `White plays ${tileName(plays, lang)}` : `白板当${tileName(plays, lang)}`;
  return el;
}

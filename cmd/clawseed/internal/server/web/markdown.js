// A small, safe Markdown renderer for model text.
//
// Safety by construction: the renderer never produces HTML text. It builds
// DOM nodes with createElement and puts every piece of source text into the
// page as a Text node (or textContent), so `<script>`, `<img onerror>` and
// entities in a reply are shown as the characters they are and never parsed
// as markup. The only attributes it sets are fixed ones, `href` on links
// whose URL parses as absolute http or https (safeURL, the one place that
// rule lives), a sanitised `language-*` class on code blocks, alignment
// classes on table cells and `start` on ordered lists.
//
// Supported: ATX and setext headings, paragraphs (a single newline is a line
// break, as in chat), emphasis, strong, strikethrough, code spans, fenced
// code (an unclosed fence runs to the end: a reply being streamed), block
// quotes, nested bullet and ordered lists with task markers, GFM tables,
// thematic breaks, links, <autolinks> and bare http(s) URLs. Images are
// shown as links: a reply never makes the page load anything.
//
// Cost is bounded: every search for a closing delimiter that fails is
// remembered for the rest of the text, brackets are matched in one pass,
// and nesting stops at MAX_DEPTH.

import { MAX_DEPTH, inline, safeURL } from "./inline.js";

export { safeURL };

// render returns a DocumentFragment with src rendered.
export function render(src, doc = document) {
  const frag = doc.createDocumentFragment();
  const lines = String(src ?? "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map(expandTabs);
  blocks(doc, lines, frag, 0);
  return frag;
}

// renderInto replaces the children of el with src rendered.
export function renderInto(el, src) {
  el.replaceChildren(render(src, el.ownerDocument));
}

function expandTabs(line) {
  const m = /^[ \t]+/.exec(line);
  if (!m || !m[0].includes("\t")) {
    return line;
  }
  let col = 0;
  for (const ch of m[0]) {
    col = ch === "\t" ? col + 4 - (col % 4) : col + 1;
  }
  return " ".repeat(col) + line.slice(m[0].length);
}

const isBlank = (line) => /^\s*$/.test(line);
const indentOf = (line) => /^ */.exec(line)[0].length;

// The block patterns are linear: no two parts of one can match the same
// characters, so a long line never makes them backtrack.

// fenceOpen returns {fence, lang} when line opens a fenced code block.
function fenceOpen(line) {
  const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m || (m[1][0] === "`" && m[2].includes("`"))) {
    return null;
  }
  const info = m[2].trim();
  const sp = info.search(/\s/);
  return { fence: m[1], lang: sp < 0 ? info : info.slice(0, sp) };
}

// headingOf returns {level, text} when line is an ATX heading.
function headingOf(line) {
  const m = /^ {0,3}(#{1,6})(?:[ \t]|$)(.*)$/.exec(line);
  if (!m) {
    return null;
  }
  let text = m[2].trim();
  // A closing run of #s after a space is not part of the text.
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") {
    end--;
  }
  if (end === 0) {
    text = "";
  } else if (end < text.length && (text[end - 1] === " " || text[end - 1] === "\t")) {
    text = text.slice(0, end).trim();
  }
  return { level: m[1].length, text };
}

const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>/;
const LIST = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

function isTableStart(lines, i) {
  return (
    i + 1 < lines.length &&
    lines[i].includes("|") &&
    isDelimiterRow(lines[i + 1]) &&
    splitRow(lines[i]).length === splitRow(lines[i + 1]).length
  );
}

// startsBlock says whether line i begins a block that ends a paragraph.
function startsBlock(lines, i) {
  const l = lines[i];
  return (
    fenceOpen(l) ||
    headingOf(l) ||
    RULE.test(l) ||
    QUOTE.test(l) ||
    LIST.test(l) ||
    isTableStart(lines, i)
  );
}

function el(doc, tag, cls) {
  const e = doc.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  return e;
}

function blocks(doc, lines, parent, depth) {
  if (depth >= MAX_DEPTH) {
    // Too deep to be meant: the rest is shown as it was written.
    const p = el(doc, "p");
    p.textContent = lines.join("\n");
    parent.append(p);
    return;
  }
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (isBlank(line)) {
      i++;
    } else if ((m = fenceOpen(line))) {
      i = fenced(doc, lines, i, m, parent);
    } else if ((m = headingOf(line))) {
      const h = el(doc, "h" + m.level);
      inline(doc, m.text, h, depth);
      parent.append(h);
      i++;
    } else if (RULE.test(line)) {
      parent.append(el(doc, "hr"));
      i++;
    } else if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && QUOTE.test(lines[i])) {
        inner.push(lines[i].replace(/^ {0,3}> ?/, ""));
        i++;
      }
      const q = el(doc, "blockquote");
      blocks(doc, inner, q, depth + 1);
      parent.append(q);
    } else if (LIST.test(line)) {
      i = list(doc, lines, i, parent, depth);
    } else if (isTableStart(lines, i)) {
      i = table(doc, lines, i, parent, depth);
    } else {
      i = paragraph(doc, lines, i, parent, depth);
    }
  }
}

function fenced(doc, lines, i, m, parent) {
  const fence = m.fence;
  const close = new RegExp("^ {0,3}" + (fence[0] === "`" ? "`" : "~") + "{" + fence.length + ",}[ \\t]*$");
  const indent = indentOf(lines[i]);
  const body = [];
  i++;
  while (i < lines.length && !close.test(lines[i])) {
    body.push(lines[i].replace(new RegExp("^ {0," + indent + "}"), ""));
    i++;
  }
  const pre = el(doc, "pre");
  const code = el(doc, "code");
  const lang = m.lang.replace(/[^\w+#.-]/g, "").slice(0, 32);
  if (lang) {
    code.className = "language-" + lang;
  }
  code.textContent = body.join("\n");
  pre.append(code);
  parent.append(pre);
  return i + 1; // past the closing fence (or the end)
}

function paragraph(doc, lines, i, parent, depth) {
  const text = [lines[i]]; // the first line always belongs here: progress
  i++;
  while (i < lines.length && !isBlank(lines[i])) {
    const sm = SETEXT.exec(lines[i]);
    if (sm) {
      const h = el(doc, sm[1][0] === "=" ? "h1" : "h2");
      inline(doc, text.map((l) => l.trim()).join("\n"), h, depth);
      parent.append(h);
      return i + 1;
    }
    if (startsBlock(lines, i)) {
      break;
    }
    text.push(lines[i]);
    i++;
  }
  const p = el(doc, "p");
  inline(doc, text.map((l) => l.replace(/^ +/, "")).join("\n").trimEnd(), p, depth);
  parent.append(p);
  return i;
}

function list(doc, lines, i, parent, depth) {
  const first = LIST.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const kind = first[2].slice(-1); // the bullet, or the ordered delimiter
  const listEl = el(doc, ordered ? "ol" : "ul");
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) {
      listEl.start = start;
    }
  }
  let tight = true;
  while (i < lines.length) {
    const m = LIST.exec(lines[i]);
    if (!m || /\d/.test(m[2]) !== ordered || m[2].slice(-1) !== kind) {
      break;
    }
    // Content is indented past the marker; more than four spaces after it
    // would be code, which counts as one.
    const gap = m[3].length >= 1 && m[3].length <= 4 ? m[3].length : 1;
    const contentIndent = m[1].length + m[2].length + gap;
    const item = [m[4]];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (isBlank(l)) {
        let j = i + 1;
        while (j < lines.length && isBlank(lines[j])) {
          j++;
        }
        if (j < lines.length && indentOf(lines[j]) >= contentIndent) {
          tight = false;
          item.push("");
          i++;
          continue;
        }
        break;
      }
      if (indentOf(l) >= contentIndent) {
        item.push(l.slice(contentIndent));
      } else if (startsBlock(lines, i)) {
        break;
      } else {
        item.push(l.trim()); // a lazy continuation line
      }
      i++;
    }
    const li = el(doc, "li");
    const task = /^\[([ xX])\][ \t]+/.exec(item[0]);
    if (task) {
      item[0] = item[0].slice(task[0].length);
      li.className = "task";
      const box = el(doc, "span", "box");
      box.textContent = task[1] === " " ? "☐ " : "☑ ";
      li.append(box);
    }
    blocks(doc, item, li, depth + 1);
    listEl.append(li);
    // Blank lines between two items of this list make it loose.
    let j = i;
    while (j < lines.length && isBlank(lines[j])) {
      j++;
    }
    if (j > i && j < lines.length) {
      const n = LIST.exec(lines[j]);
      if (n && /\d/.test(n[2]) === ordered && n[2].slice(-1) === kind) {
        tight = false;
        i = j;
      }
    }
  }
  if (tight) {
    // A tight list's items hold their text without paragraphs.
    for (const p of listEl.querySelectorAll(":scope > li > p")) {
      p.replaceWith(...p.childNodes);
    }
  }
  parent.append(listEl);
  return i;
}

// splitRow splits a table row on the pipes that are neither escaped nor
// inside a code span.
function splitRow(line) {
  let s = line.trim();
  if (s.startsWith("|")) {
    s = s.slice(1);
  }
  if (s.endsWith("|") && !s.endsWith("\\|")) {
    s = s.slice(0, -1);
  }
  const cells = [];
  let cur = "";
  let code = 0; // the length of the open code span's backtick run
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\" && s[i + 1] === "|") {
      cur += "|";
      i++;
    } else if (c === "`") {
      let n = 1;
      while (s[i + n] === "`") {
        n++;
      }
      if (code === 0) {
        code = n;
      } else if (code === n) {
        code = 0;
      }
      cur += s.slice(i, i + n);
      i += n - 1;
    } else if (c === "|" && code === 0) {
      cells.push(cur.trim());
      cur = "";
    } else {
      cur += c;
    }
  }
  cells.push(cur.trim());
  return cells;
}

function isDelimiterRow(line) {
  if (!line.includes("-") || !line.includes("|")) {
    return false;
  }
  const cells = splitRow(line);
  return cells.length > 0 && cells.every((c) => /^:?-+:?$/.test(c));
}

function table(doc, lines, i, parent, depth) {
  const head = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((c) => {
    const l = c.startsWith(":");
    const r = c.endsWith(":");
    return l && r ? "align-center" : r ? "align-right" : l ? "align-left" : "";
  });
  const row = (cells, tag) => {
    const tr = el(doc, "tr");
    for (let k = 0; k < head.length; k++) {
      const cell = el(doc, tag, aligns[k]);
      inline(doc, cells[k] ?? "", cell, depth);
      tr.append(cell);
    }
    return tr;
  };
  const wrap = el(doc, "div", "table-wrap");
  const t = el(doc, "table");
  const thead = el(doc, "thead");
  thead.append(row(head, "th"));
  t.append(thead);
  i += 2;
  const tbody = el(doc, "tbody");
  while (i < lines.length && !isBlank(lines[i]) && lines[i].includes("|")) {
    const l = lines[i];
    if (fenceOpen(l) || headingOf(l) || QUOTE.test(l)) {
      break;
    }
    tbody.append(row(splitRow(l), "td"));
    i++;
  }
  if (tbody.childElementCount > 0) {
    t.append(tbody);
  }
  wrap.append(t);
  parent.append(wrap);
  return i;
}


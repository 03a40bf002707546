// Inline Markdown: code spans, links, autolinks, emphasis, strong,
// strikethrough, escapes and line breaks, built as DOM nodes (see
// markdown.js for the safety rule). safeURL is the one place that decides
// which URLs a link may point to.

export const MAX_DEPTH = 12;
const PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const MAX_URL = 4096; // a link destination longer than this is text
const MAX_PARENS = 32; // parentheses nested deeper in a destination: text (as cmark)

// safeURL returns the normalised URL when raw is an absolute http or https
// URL, else null. Relative URLs, javascript:, data:, vbscript: and the like
// are refused; the URL parser removes the tabs and newlines an attacker
// might hide a scheme behind before the protocol is checked.
export function safeURL(raw) {
  let u;
  try {
    u = new URL(String(raw).trim());
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return null;
  }
  return u.href;
}

function el(doc, tag) {
  return doc.createElement(tag);
}

// matchBrackets pairs every "[" with its "]" in one pass, escaped ones
// aside. Brackets inside code spans count too: that only changes which text
// is a link's label, never what is safe.
function matchBrackets(src) {
  const pairs = new Map();
  const stack = [];
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      stack.push(i);
    } else if (c === "]" && stack.length > 0) {
      pairs.set(stack.pop(), i);
    }
  }
  return pairs;
}

// nextIndex is src.indexOf(ch, from) remembered per character: the inline
// scan asks with growing positions, so the answer stays good until passed
// and no stretch of text is searched twice.
function nextIndex(cache, src, ch, from) {
  const c = cache.get(ch);
  if (c && c.from <= from && (c.at === -1 || c.at >= from)) {
    return c.at;
  }
  const at = src.indexOf(ch, from);
  cache.set(ch, { from, at });
  return at;
}

const isSpaceCode = (c) => c === 32 || (c >= 9 && c <= 13);

// linkAt parses [label](destination "title") at i; null when it is not one.
function linkAt(src, i, brackets, cache) {
  const close = brackets.get(i);
  if (close === undefined || src[close + 1] !== "(") {
    return null;
  }
  let j = close + 2;
  while (src[j] === " ") {
    j++;
  }
  let url = "";
  if (src[j] === "<") {
    const end = nextIndex(cache, src, ">", j);
    const nl = nextIndex(cache, src, "\n", j);
    if (end < 0 || (nl >= 0 && nl < end)) {
      return null;
    }
    url = src.slice(j + 1, end);
    j = end + 1;
  } else {
    let parens = 0;
    const start = j;
    for (; j < src.length; j++) {
      if (j - start > MAX_URL) {
        return null;
      }
      const c = src[j];
      if (c === "\\" && j + 1 < src.length) {
        j++;
      } else if (c === "(") {
        if (++parens > MAX_PARENS) {
          return null;
        }
      } else if (c === ")") {
        if (parens === 0) {
          break;
        }
        parens--;
      } else if (isSpaceCode(src.charCodeAt(j))) {
        break;
      }
    }
    url = src.slice(start, j);
  }
  while (src[j] === " ") {
    j++;
  }
  const q = src[j];
  if (q === '"' || q === "'") {
    const end = nextIndex(cache, src, q, j + 1);
    if (end < 0) {
      return null;
    }
    j = end + 1;
    while (src[j] === " ") {
      j++;
    }
  }
  if (src[j] !== ")") {
    return null;
  }
  return { label: src.slice(i + 1, close), url, end: j + 1 };
}

function runLength(src, i, ch) {
  let n = 0;
  while (src[i + n] === ch) {
    n++;
  }
  return n;
}

const isSpace = (c) => c === undefined || /\s/.test(c);
const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

// closer finds the closing run of k delimiters ch after from; -1 when none.
// A run longer than k closes with its last k characters (***x*** is
// <strong><em>x</em></strong>).
function closer(src, from, ch, k) {
  for (let j = src.indexOf(ch, from); j >= 0; j = src.indexOf(ch, j + 1)) {
    const n = runLength(src, j, ch);
    if (n >= k && !isSpace(src[j - 1]) && !(ch === "_" && isWord(src[j + n]))) {
      return j + n - k;
    }
    j += n - 1;
  }
  return -1;
}

// inline renders src's inline Markdown into parent.
export function inline(doc, src, parent, depth) {
  if (depth >= MAX_DEPTH) {
    parent.append(doc.createTextNode(src));
    return;
  }
  const brackets = matchBrackets(src);
  const cache = new Map(); // nextIndex's answers
  const failed = new Set(); // searches that found no closer: later ones would not either
  let buf = "";
  const flush = () => {
    if (buf) {
      parent.append(doc.createTextNode(buf));
      buf = "";
    }
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\" && i + 1 < src.length && PUNCT.includes(src[i + 1])) {
      buf += src[i + 1];
      i += 2;
      continue;
    }
    if (c === "\n") {
      buf = trimEndOf(buf, " \\");
      flush();
      parent.append(el(doc, "br"));
      i++;
      continue;
    }
    if (c === "`") {
      const n = runLength(src, i, "`");
      const key = "`" + n;
      let end = -1;
      if (!failed.has(key)) {
        for (let j = src.indexOf("`", i + n); j >= 0; j = src.indexOf("`", j + 1)) {
          const r = runLength(src, j, "`");
          if (r === n) {
            end = j;
            break;
          }
          j += r - 1;
        }
        if (end < 0) {
          failed.add(key);
        }
      }
      if (end >= 0) {
        flush();
        let t = src.slice(i + n, end).replace(/\n/g, " ");
        if (/^ .*\S.* $/.test(t)) {
          t = t.slice(1, -1);
        }
        const code = el(doc, "code");
        code.textContent = t;
        parent.append(code);
        i = end + n;
      } else {
        buf += src.slice(i, i + n);
        i += n;
      }
      continue;
    }
    if (c === "[" || (c === "!" && src[i + 1] === "[")) {
      const at = c === "!" ? i + 1 : i;
      const link = linkAt(src, at, brackets, cache);
      if (link) {
        flush();
        const href = safeURL(link.url);
        if (href) {
          const a = anchor(doc, href, "");
          inline(doc, link.label || href, a, depth + 1);
          parent.append(a);
        } else {
          // Not a URL the page may link to: shown as written.
          parent.append(doc.createTextNode(src.slice(i, link.end)));
        }
        i = link.end;
        continue;
      }
    }
    if (c === "<" && /^<https?:\/\//i.test(src.substr(i, 9))) {
      const m = /^<(https?:\/\/[^\s<>]+)>/i.exec(src.slice(i, i + 2048));
      const href = m && safeURL(m[1]);
      if (href) {
        flush();
        parent.append(anchor(doc, href, m[1]));
        i += m[0].length;
        continue;
      }
    }
    if ((c === "h" || c === "H") && !isWord(src[i - 1]) && /^https?:\/\//i.test(src.substr(i, 8))) {
      const m = /^https?:\/\/[^\s<>]+/i.exec(src.slice(i, i + 2048));
      if (m) {
        let text = trimEndOf(m[0], ".,:;!?'\"*_~");
        while (text.endsWith(")") && (text.match(/\(/g) || []).length < (text.match(/\)/g) || []).length) {
          text = text.slice(0, -1);
        }
        const href = safeURL(text);
        if (href) {
          flush();
          parent.append(anchor(doc, href, text));
          i += text.length;
          continue;
        }
      }
    }
    if (c === "*" || c === "_" || c === "~") {
      const n = runLength(src, i, c);
      const canOpen = !isSpace(src[i + n]) && !(c === "_" && isWord(src[i - 1]));
      let done = false;
      if (canOpen) {
        for (const k of c === "~" ? [2] : n >= 2 ? [2, 1] : [1]) {
          const key = c + k;
          if (n < k || failed.has(key)) {
            continue;
          }
          const j = closer(src, i + k + 1, c, k);
          if (j < 0) {
            failed.add(key);
            continue;
          }
          flush();
          const tag = c === "~" ? "del" : k === 2 ? "strong" : "em";
          const e = el(doc, tag);
          inline(doc, src.slice(i + k, j), e, depth + 1);
          parent.append(e);
          i = j + k;
          done = true;
          break;
        }
      }
      if (!done) {
        buf += src.slice(i, i + n);
        i += n;
      }
      continue;
    }
    buf += c;
    i++;
  }
  flush();
}

function anchor(doc, href, text) {
  const a = el(doc, "a");
  a.href = href;
  a.rel = "noopener noreferrer nofollow";
  a.target = "_blank";
  a.textContent = text;
  return a;
}

// trimEndOf removes the characters of set from the end of s (a loop: a
// regular expression anchored at the end is quadratic on long runs).
function trimEndOf(s, set) {
  let end = s.length;
  while (end > 0 && set.includes(s[end - 1])) {
    end--;
  }
  return s.slice(0, end);
}

// The clawseed serve page: the session list, a session's chat, and the
// turn driver that reads a turn's event stream and resumes it with
// GET .../events?after=N when the connection drops.

import { API, APIError, getToken, setToken, paths, readEvents } from "./api.js";
import { Transcript } from "./transcript.js";

const PAGE = 50; // sessions per list request
const MAX_RESUMES = 20; // reconnections of one turn before giving up

const nf = new Intl.NumberFormat("en-US");

// sleep waits ms, or less when signal aborts (the turn was left).
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) {
      resolve();
      return;
    }
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

function when(iso) {
  const d = new Date(iso);
  return isNaN(d) ? String(iso || "") : d.toLocaleString();
}

class App {
  constructor(doc) {
    this.doc = doc;
    this.api = new API(doc.baseURI);
    this.id = ""; // the open session
    this.detail = null;
    this.cursor = "";
    this.turn = null; // the turn being followed: {id, lastSeq, ended, abort}
    this.seq = 0; // the last event sequence number seen in the open session
    this.filterTimer = 0;
    this.listGen = 0; // the session list request whose answer counts
    this.$ = (id) => doc.getElementById(id);
    this.transcript = new Transcript(this.$("transcript"), {
      approve: (callID, decision, reason) => this.approve(callID, decision, reason),
      onInit: (init) => this.offerSkills(init.skills),
      onSkill: (name, active) => this.skillChanged(name, active),
      onResult: () => {},
      announce: (text) => this.status(text),
    });
    this.wire();
  }

  wire() {
    const $ = this.$;
    $("token").value = getToken();
    $("token-form").addEventListener("submit", (e) => {
      e.preventDefault();
      setToken($("token").value.trim());
      this.flash("");
      this.loadSessions(true);
      if (this.id) {
        this.open(this.id);
      }
    });
    $("new-session").addEventListener("submit", (e) => {
      e.preventDefault();
      this.create();
    });
    $("filter-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.loadSessions(true);
    });
    $("filter").addEventListener("input", () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.loadSessions(true), 250);
    });
    $("more").addEventListener("click", () => this.loadSessions(false));
    $("back").addEventListener("click", () => this.doc.body.classList.remove("show-chat"));
    $("delete").addEventListener("click", () => this.remove());
    $("skill-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const name = $("skill-name").value.trim();
      if (name) {
        this.setSkill(name, true);
      }
    });
    $("composer").addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    $("composer-text").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.send();
      }
    });
    $("cancel").addEventListener("click", () => this.cancel());
    this.doc.defaultView.addEventListener("hashchange", () => this.route());
  }

  start() {
    this.loadSessions(true);
    this.route();
  }

  // route opens the session the address names (#session=ID).
  route() {
    const m = /^#session=(.+)$/.exec(this.doc.location.hash);
    const id = m ? decodeURIComponent(m[1]) : "";
    if (id && id !== this.id) {
      this.open(id);
    }
  }

  flash(message) {
    const bar = this.$("error");
    bar.textContent = message;
    bar.hidden = !message;
  }

  fail(err) {
    this.flash(err instanceof APIError || err instanceof TypeError ? err.message : String(err));
  }

  status(text) {
    this.$("turn-status").textContent = text;
  }

  async loadSessions(reset) {
    const q = { limit: String(PAGE) };
    const ws = this.$("filter").value.trim();
    if (ws) {
      q.workspace = ws;
    }
    if (!reset && this.cursor) {
      q.cursor = this.cursor;
    }
    // Only the latest request's answer is shown: typing in the filter
    // sends several, and they may come back out of order.
    const gen = ++this.listGen;
    let page;
    try {
      page = await this.api.json("GET", paths.sessions(q));
    } catch (err) {
      if (gen === this.listGen) {
        this.fail(err);
      }
      return;
    }
    if (gen !== this.listGen) {
      return;
    }
    const list = this.$("session-list");
    if (reset) {
      list.replaceChildren();
    }
    for (const s of page.sessions || []) {
      list.append(this.sessionItem(s));
    }
    this.cursor = page.next_cursor || "";
    this.$("more").hidden = !this.cursor;
    this.$("no-sessions").hidden = list.childElementCount > 0;
  }

  sessionItem(s) {
    const doc = this.doc;
    const li = doc.createElement("li");
    const b = doc.createElement("button");
    b.type = "button";
    b.className = "session-item";
    b.dataset.id = s.id;
    if (s.id === this.id) {
      b.setAttribute("aria-current", "true");
    }
    const title = doc.createElement("span");
    title.className = "title";
    title.textContent = s.title || "Untitled · " + String(s.id).slice(0, 8);
    const meta = doc.createElement("span");
    meta.className = "meta";
    meta.textContent = [s.workspace, s.model, nf.format(s.messages || 0) + " messages", when(s.updated)].filter(Boolean).join(" · ");
    b.append(title, meta);
    b.addEventListener("click", () => this.open(s.id));
    li.append(b);
    return li;
  }

  async create() {
    const $ = this.$;
    const body = {
      workspace: $("new-workspace").value.trim(),
      model: $("new-model").value.trim(),
      skills: $("new-skills").value.split(/[\s,]+/).filter(Boolean),
    };
    $("create").disabled = true;
    try {
      const s = await this.api.json("POST", paths.sessions(), body);
      this.flash("");
      await this.open(s.id);
      await this.loadSessions(true);
      $("composer-text").focus();
    } catch (err) {
      this.fail(err);
    } finally {
      $("create").disabled = false;
    }
  }

  // leave stops following the open session's turn (the turn itself goes
  // on at the server).
  leave() {
    if (this.turn) {
      this.turn.abort.abort();
      this.turn = null;
    }
  }

  async open(id) {
    this.leave();
    this.id = id;
    this.detail = null;
    this.seq = 0;
    const $ = this.$;
    for (const b of this.doc.querySelectorAll(".session-item")) {
      b.toggleAttribute("aria-current", b.dataset.id === id);
    }
    this.transcript.clear();
    this.status("");
    $("empty").hidden = true;
    $("session").hidden = false;
    this.doc.body.classList.add("show-chat");
    this.setState("loading");
    if (this.doc.location.hash !== "#session=" + encodeURIComponent(id)) {
      this.doc.defaultView.history.replaceState(null, "", "#session=" + encodeURIComponent(id));
    }
    let d;
    try {
      d = await this.api.json("GET", paths.session(id));
    } catch (err) {
      this.fail(err);
      this.setState("idle");
      return;
    }
    if (this.id !== id) {
      return; // another session was opened meanwhile
    }
    this.flash("");
    this.showDetail(d);
    this.transcript.history(d.messages, d.turn_running);
    if (d.turn_running) {
      // Follow the running turn from its stored events.
      this.drive(this.newTurn(), null, "Following the running turn…");
    } else {
      this.setState("idle");
    }
  }

  showDetail(d) {
    this.detail = d;
    const $ = this.$;
    $("session-title").textContent = d.title || "Untitled session";
    this.doc.title = (d.title || "Untitled session") + " · clawseed";
    $("session-meta").textContent = [d.workspace, d.model, "created " + when(d.created)].filter(Boolean).join(" · ");
    const u = d.usage || {};
    const usage = $("usage");
    usage.replaceChildren();
    const row = (k, v) => {
      const dt = this.doc.createElement("dt");
      dt.textContent = k;
      const dd = this.doc.createElement("dd");
      dd.textContent = v;
      usage.append(dt, dd);
    };
    row("In", nf.format(u.input_tokens || 0));
    row("Out", nf.format(u.output_tokens || 0));
    row("Cached", nf.format(u.cached_tokens || 0));
    row("Cost", "$" + Number(d.cost_usd || 0).toFixed(4));
    this.showSkills(d.active_skills || []);
  }

  showSkills(names) {
    const list = this.$("active-skills");
    list.replaceChildren();
    for (const name of [...names].sort()) {
      const li = this.doc.createElement("li");
      li.className = "chip";
      const span = this.doc.createElement("span");
      span.textContent = name;
      const x = this.doc.createElement("button");
      x.type = "button";
      x.textContent = "×";
      x.setAttribute("aria-label", "Deactivate " + name);
      x.addEventListener("click", () => this.setSkill(name, false));
      li.append(span, x);
      list.append(li);
    }
    if (names.length === 0) {
      const li = this.doc.createElement("li");
      li.className = "muted";
      li.textContent = "none";
      list.append(li);
    }
  }

  offerSkills(names) {
    const dl = this.$("skill-options");
    dl.replaceChildren();
    for (const name of [...(names || [])].sort()) {
      const o = this.doc.createElement("option");
      o.value = name;
      dl.append(o);
    }
  }

  skillChanged(name, active) {
    if (!this.detail) {
      return;
    }
    const set = new Set(this.detail.active_skills || []);
    if (active) {
      set.add(name);
    } else {
      set.delete(name);
    }
    this.detail.active_skills = [...set];
    this.showSkills(this.detail.active_skills);
  }

  async setSkill(name, active) {
    const id = this.id;
    try {
      const r = await this.api.json(active ? "POST" : "DELETE", paths.skill(id, name));
      if (this.id === id && this.detail) {
        this.detail.active_skills = r.active_skills || [];
        this.showSkills(this.detail.active_skills);
        this.$("skill-name").value = "";
      }
      this.flash("");
    } catch (err) {
      this.fail(err);
    }
  }

  async refresh() {
    const id = this.id;
    try {
      const d = await this.api.json("GET", paths.session(id));
      if (this.id === id) {
        this.showDetail(d);
      }
    } catch (err) {
      this.fail(err);
    }
  }

  async remove() {
    const id = this.id;
    if (!id || !this.doc.defaultView.confirm("Delete this session? Its transcript is removed.")) {
      return;
    }
    try {
      await this.api.json("DELETE", paths.session(id));
    } catch (err) {
      this.fail(err);
      return;
    }
    this.leave();
    this.id = "";
    this.$("session").hidden = true;
    this.$("empty").hidden = false;
    this.doc.body.classList.remove("show-chat");
    this.doc.defaultView.history.replaceState(null, "", "#");
    this.loadSessions(true);
  }

  setState(state) {
    this.$("session").dataset.state = state;
    const running = state === "running";
    this.$("send").disabled = running || state === "loading";
    this.$("cancel").disabled = !running;
  }

  newTurn() {
    this.transcript.beginTurn();
    // A turn's events follow the last one seen: a stream that breaks
    // before its first event resumes from there, not from the start.
    const turn = { id: this.id, firstSeq: this.seq, lastSeq: this.seq, ended: false, abort: new AbortController(), unsent: null };
    this.turn = turn;
    this.setState("running");
    return turn;
  }

  async send() {
    const box = this.$("composer-text");
    const text = box.value.trim();
    if (!text || !this.id || this.turn) {
      return;
    }
    this.flash("");
    const shown = this.transcript.prompt(text);
    box.value = "";
    const turn = this.newTurn();
    // unsent puts the message back for another try when the server did
    // not take it.
    turn.unsent = () => {
      shown.remove();
      if (box.value === "") {
        box.value = text;
      }
    };
    this.status("Working…");
    let resp = null;
    try {
      resp = await this.api.stream(paths.messages(turn.id), { text }, turn.abort.signal);
    } catch (err) {
      if (turn.abort.signal.aborted) {
        return;
      }
      if (!(err instanceof APIError)) {
        // The request may have reached the server: look for its turn.
        this.drive(turn, null, "Connection lost, resuming…");
        return;
      }
      turn.unsent();
      turn.unsent = null;
      this.finish(turn);
      if (err.code === "turn_running") {
        // Someone else's turn: follow it, then the message can go.
        this.open(turn.id).then(() => this.flash("A turn was already running in this session: your message was not sent."));
      } else {
        this.fail(err);
      }
      return;
    }
    this.drive(turn, resp, "");
  }

  // drive reads the turn's stream, and after a drop resumes it from the
  // last sequence number seen until the turn's last event arrives, the
  // server says no turn runs, or the page leaves the session.
  async drive(turn, resp, note) {
    const signal = turn.abort.signal;
    for (let attempt = 0; ; attempt++) {
      if (resp) {
        try {
          for await (const sse of readEvents(resp.body)) {
            this.event(turn, sse);
          }
        } catch {
          // The connection broke mid-event: resumed below.
        }
      }
      if (signal.aborted) {
        return;
      }
      if (turn.ended) {
        break;
      }
      if (attempt > 0) {
        // A resumed stream ended without the turn's end: is it still on?
        try {
          const d = await this.api.json("GET", paths.session(turn.id), undefined, signal);
          if (!d.turn_running) {
            break;
          }
        } catch {
          // Ask again after the next attempt.
        }
      }
      if (attempt >= MAX_RESUMES) {
        this.flash("Lost the connection to the server; reload the page to see the turn.");
        break;
      }
      this.status(note || "Connection lost, resuming…");
      note = "";
      await sleep(attempt === 0 ? 0 : Math.min(8000, 250 * 2 ** attempt), signal);
      if (signal.aborted) {
        return;
      }
      try {
        resp = await this.api.stream(paths.events(turn.id, turn.lastSeq), undefined, signal);
      } catch (err) {
        resp = null;
        if (err instanceof APIError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) {
          this.fail(err);
          break;
        }
      }
    }
    this.finish(turn);
  }

  // event handles one SSE event of turn: events already seen (a resumed
  // stream repeats none, but a server may) are skipped by sequence number.
  event(turn, sse) {
    let ev;
    try {
      ev = JSON.parse(sse.data);
    } catch {
      return;
    }
    if (!ev || typeof ev !== "object") {
      return;
    }
    const seq = Number(ev.seq ?? sse.id);
    if (Number.isFinite(seq) && seq > 0) {
      if (seq <= turn.lastSeq) {
        return;
      }
      turn.lastSeq = seq;
      if (turn === this.turn) {
        this.seq = seq;
      }
    }
    turn.ended = ev.type === "result" || ev.type === "turn_interrupted";
    if (turn === this.turn) {
      this.transcript.handle(ev);
      if (ev.type !== "result") {
        this.status(ev.type === "approval_request" ? "Waiting for your approval." : "Working…");
      }
    }
  }

  finish(turn) {
    if (turn !== this.turn) {
      return;
    }
    this.turn = null;
    this.setState("idle");
    this.status(turn.ended ? "Turn finished." : "");
    if (turn.unsent && turn.lastSeq === turn.firstSeq) {
      // Not one event came back: the message most likely never arrived.
      turn.unsent();
      this.flash("The message did not reach the server; it is back in the box.");
    }
    this.refresh();
    this.loadSessions(true);
  }

  async approve(callID, decision, reason) {
    const body = { decision, reason: reason || "" };
    await this.api.json("POST", paths.approval(this.id, callID), body);
  }

  async cancel() {
    if (!this.turn) {
      return;
    }
    this.$("cancel").disabled = true;
    this.status("Cancelling…");
    try {
      await this.api.json("POST", paths.cancel(this.turn.id));
    } catch (err) {
      this.fail(err);
      this.$("cancel").disabled = false;
    }
  }
}

new App(document).start();

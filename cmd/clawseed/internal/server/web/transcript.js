// The conversation view: a session's stored messages and a turn's events
// (the objects of `clawseed run --output stream-json`, plus clawseed's
// approval_request, approval_resolved and turn_interrupted) rendered into
// the transcript element. Model and tool text reaches the page only as Text
// nodes or through the Markdown renderer, which builds nodes the same way.

import { renderInto } from "./markdown.js";

const MAX_RESULT = 20000; // characters of a tool result shown

function el(doc, tag, cls, text) {
  const e = doc.createElement(tag);
  if (cls) {
    e.className = cls;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

function pretty(value) {
  if (value === undefined || value === null) {
    return "";
  }
  if (typeof value === "string") {
    return value;
  }
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

// brief is the one-line gist of a call's arguments for its summary line.
function brief(args) {
  if (!args || typeof args !== "object") {
    return "";
  }
  for (const key of ["command", "path", "file_path", "pattern", "url", "query", "name", "skill", "description", "prompt"]) {
    if (typeof args[key] === "string" && args[key] !== "") {
      return args[key].split("\n")[0].slice(0, 160);
    }
  }
  return "";
}

function clip(text) {
  const s = String(text ?? "");
  if (s.length <= MAX_RESULT) {
    return s;
  }
  return s.slice(0, MAX_RESULT) + "\n… (" + (s.length - MAX_RESULT) + " more characters)";
}

// A Transcript shows one session. hooks: approve(callID, decision, reason)
// → Promise, onInit(initEvent), onSkill(name, active), onResult(resultEvent),
// announce(text) for the screen-reader status line.
export class Transcript {
  constructor(root, hooks) {
    this.root = root;
    this.doc = root.ownerDocument;
    this.hooks = hooks;
    // The view follows new output while it is scrolled to the bottom, and
    // stays put while the reader scrolls back.
    this.stick = true;
    root.addEventListener("scroll", () => {
      this.stick = root.scrollTop + root.clientHeight >= root.scrollHeight - 48;
    });
    const View = this.doc.defaultView;
    new View.MutationObserver(() => {
      if (this.stick) {
        root.scrollTop = root.scrollHeight;
      }
    }).observe(root, { childList: true, subtree: true, characterData: true });
    this.clear();
  }

  clear() {
    this.stick = true;
    this.root.replaceChildren();
    this.tools = new Map(); // call id → tool view
    this.approvals = new Map(); // call id → approval view
    this.pending = new Map(); // parent call id ("" top level) → streamed message
    this.turnEl = null;
    this.todosEl = null; // the todo list shown
  }

  // history renders a SessionDetail's messages. With untilPrompt it stops
  // after the last prompt the user typed: the running turn's events follow.
  history(messages, untilPrompt) {
    let list = messages || [];
    if (untilPrompt) {
      let last = -1;
      list.forEach((m, i) => {
        if (m.role === "user" && m.text) {
          last = i;
        }
      });
      list = last >= 0 ? list.slice(0, last + 1) : list;
    }
    for (const m of list) {
      if (m.role === "user" && m.text) {
        this.prompt(m.text);
      } else if (m.role === "assistant" && (m.text || (m.tool_calls || []).length > 0)) {
        const msg = el(this.doc, "div", "msg assistant");
        if (m.text) {
          const md = el(this.doc, "div", "md");
          renderInto(md, m.text);
          msg.append(md);
        }
        for (const c of m.tool_calls || []) {
          msg.append(this.tool(c.id, c.name, c.args).el);
        }
        this.root.append(msg);
      }
      for (const r of m.tool_results || []) {
        this.toolResult(r.id, r.content, r.is_error);
      }
    }
  }

  // prompt shows what the user sent, as plain text, and returns its element.
  prompt(text) {
    const msg = el(this.doc, "div", "msg user");
    msg.append(el(this.doc, "div", "text", text));
    this.root.append(msg);
    return msg;
  }

  // beginTurn opens the container the next events render into.
  beginTurn() {
    this.turnEl = el(this.doc, "div", "turn");
    this.root.append(this.turnEl);
    this.pending.clear();
  }

  note(text, cls) {
    const n = el(this.doc, "p", "note" + (cls ? " " + cls : ""), text);
    (this.turnEl || this.root).append(n);
    return n;
  }

  // target is where a message of the given parent call goes: inside the
  // parent's tool view when it is a sub-agent's.
  target(parent) {
    if (parent && this.tools.has(parent)) {
      return this.tools.get(parent).sub;
    }
    return this.turnEl || this.root;
  }

  handle(ev) {
    if (!ev || typeof ev !== "object") {
      return;
    }
    const parent = typeof ev.parent_tool_use_id === "string" ? ev.parent_tool_use_id : "";
    switch (ev.type) {
      case "system":
        this.system(ev);
        break;
      case "stream_event":
        this.streamEvent(ev.event || {}, parent);
        break;
      case "assistant":
        this.assistant(ev.message || {}, parent);
        break;
      case "user":
        for (const b of (ev.message && ev.message.content) || []) {
          if (b && b.type === "tool_result") {
            this.toolResult(b.tool_use_id, b.content, b.is_error);
          }
        }
        break;
      case "approval_request":
        this.approvalRequest(ev);
        break;
      case "approval_resolved":
        this.approvalResolved(ev.call_id, ev.decision);
        break;
      case "turn_interrupted":
        this.note("The turn was interrupted: " + (ev.reason || "the server driving it stopped") + ".", "error");
        break;
      case "result":
        this.result(ev);
        break;
    }
  }

  system(ev) {
    switch (ev.subtype) {
      case "init":
        // Replaying stored events, each turn starts again: only the last
        // turn's events stay.
        if (this.turnEl) {
          this.turnEl.replaceChildren();
          this.pending.clear();
        }
        this.hooks.onInit(ev);
        break;
      case "clawseed_skill_activated":
        this.note("Skill " + ev.skill + " activated.");
        this.hooks.onSkill(ev.skill, true);
        break;
      case "clawseed_skill_deactivated":
        this.note("Skill " + ev.skill + " deactivated.");
        this.hooks.onSkill(ev.skill, false);
        break;
      case "clawseed_skill_invoked":
        this.target("").append(this.tool(ev.tool_use_id, ev.name, ev.input).el);
        break;
      case "clawseed_skill_result":
        this.toolResult(ev.tool_use_id, ev.content, ev.is_error);
        break;
      case "clawseed_error":
        this.note("Error: " + ev.error, "error");
        break;
      case "clawseed_hook":
        if (ev.is_error) {
          this.note("Hook " + ev.hook_event_name + ": " + ev.text, "error");
        }
        break;
      case "compact_boundary":
        this.note("Earlier messages were compacted.");
        break;
      case "clawseed_todos":
        this.todos(Array.isArray(ev.todos) ? ev.todos : []);
        break;
      case "clawseed_plan_mode":
        this.note(ev.plan_mode ? "Plan mode on: the model reads and plans, and changes nothing until you approve its plan." : "Plan mode off.");
        break;
      case "clawseed_memory_extracted":
        if ((ev.stored || []).length > 0) {
          this.note("Remembered: " + ev.stored.join(", ") + ".");
        }
        break;
    }
  }

  // todos shows the model's todo list as it now stands (each event has the
  // whole list): it replaces the list shown before, at the end of the turn
  // so far. The marks are the terminal's.
  todos(items) {
    const doc = this.doc;
    const marks = { completed: "☒", in_progress: "◐", pending: "☐" };
    const box = el(doc, "section", "todos");
    const done = items.filter((t) => t && t.status === "completed").length;
    box.append(el(doc, "h3", "todos-title", items.length === 0 ? "Todo list cleared" : "Todo list · " + done + "/" + items.length + " done"));
    const list = el(doc, "ul", "todo-list");
    for (const t of items) {
      const status = t && Object.hasOwn(marks, t.status) ? t.status : "pending";
      const li = el(doc, "li", "todo " + status.replace("_", "-"));
      const mark = el(doc, "span", "todo-mark", marks[status]);
      mark.setAttribute("aria-label", status.replace("_", " "));
      li.append(mark, " ", el(doc, "span", "todo-text", String((t && t.content) ?? "")));
      list.append(li);
    }
    box.append(list);
    if (this.todosEl) {
      this.todosEl.remove();
    }
    this.todosEl = box;
    this.target("").append(box);
  }

  // streamEvent shows a response as it is written: text deltas rendered as
  // Markdown (once per frame), thinking as text; the assistant message that
  // follows replaces it.
  streamEvent(e, parent) {
    let p = this.pending.get(parent);
    if (e.type === "message_start" || !p) {
      if (p) {
        p.el.remove();
      }
      p = { el: el(this.doc, "div", "msg assistant streaming"), blocks: new Map() };
      this.pending.set(parent, p);
      this.target(parent).append(p.el);
    }
    if (e.type === "content_block_start") {
      const kind = e.content_block && e.content_block.type;
      const b = { kind, text: "", el: null, queued: false };
      if (kind === "text") {
        b.el = el(this.doc, "div", "md");
      } else if (kind === "thinking") {
        const d = el(this.doc, "details", "thinking");
        d.append(el(this.doc, "summary", "", "Thinking…"));
        b.el = el(this.doc, "div", "thinking-text");
        d.append(b.el);
        p.el.append(d);
      } else if (kind === "tool_use") {
        b.el = el(this.doc, "p", "note", "Calling " + (e.content_block.name || "a tool") + "…");
      }
      if (b.el && kind !== "thinking") {
        p.el.append(b.el);
      }
      p.blocks.set(e.index, b);
    } else if (e.type === "content_block_delta" && e.delta) {
      let b = p.blocks.get(e.index);
      if (!b && e.delta.type === "text_delta") {
        b = { kind: "text", text: "", el: el(this.doc, "div", "md"), queued: false };
        p.el.append(b.el);
        p.blocks.set(e.index, b);
      }
      if (!b) {
        return;
      }
      if (e.delta.type === "text_delta" && b.kind === "text") {
        b.text += e.delta.text || "";
        this.schedule(b);
      } else if (e.delta.type === "thinking_delta" && b.kind === "thinking") {
        b.text += e.delta.thinking || "";
        b.el.textContent = b.text;
      }
    }
  }

  schedule(b) {
    if (b.queued) {
      return;
    }
    b.queued = true;
    const view = this.doc.defaultView;
    const run = () => {
      b.queued = false;
      renderInto(b.el, b.text);
    };
    if (view && view.requestAnimationFrame && this.doc.visibilityState !== "hidden") {
      view.requestAnimationFrame(run);
    } else {
      run();
    }
  }

  assistant(message, parent) {
    const msg = el(this.doc, "div", "msg assistant");
    for (const b of message.content || []) {
      if (!b) {
        continue;
      }
      if (b.type === "text" && b.text) {
        const md = el(this.doc, "div", "md");
        renderInto(md, b.text);
        msg.append(md);
      } else if (b.type === "thinking" && b.thinking) {
        const d = el(this.doc, "details", "thinking");
        d.append(el(this.doc, "summary", "", "Thinking"));
        d.append(el(this.doc, "div", "thinking-text", b.thinking));
        msg.append(d);
      } else if (b.type === "tool_use") {
        msg.append(this.tool(b.id, b.name, b.input).el);
      }
    }
    const p = this.pending.get(parent);
    this.pending.delete(parent);
    if (p && p.el.isConnected) {
      p.el.replaceWith(msg);
    } else if (msg.childElementCount > 0) {
      this.target(parent).append(msg);
    }
  }

  // tool returns the view of call id, made on first sight.
  tool(id, name, args) {
    const known = id && this.tools.get(id);
    if (known) {
      return known;
    }
    const d = el(this.doc, "details", "tool");
    if (id) {
      d.dataset.callId = id;
    }
    const summary = el(this.doc, "summary");
    summary.append(el(this.doc, "span", "tool-name", name || "tool"));
    const gist = brief(args);
    if (gist) {
      summary.append(" ", el(this.doc, "span", "tool-gist", gist));
    }
    const status = el(this.doc, "span", "tool-status", "running");
    summary.append(" ", status);
    d.append(summary);
    const body = el(this.doc, "div", "tool-body");
    body.append(el(this.doc, "div", "label", "Arguments"));
    body.append(el(this.doc, "pre", "args", pretty(args) || "{}"));
    const resultLabel = el(this.doc, "div", "label", "Result");
    const result = el(this.doc, "pre", "result");
    resultLabel.hidden = true;
    result.hidden = true;
    body.append(resultLabel, result);
    const sub = el(this.doc, "div", "sub");
    body.append(sub);
    d.append(body);
    const view = { el: d, status, result, resultLabel, sub };
    if (id) {
      this.tools.set(id, view);
    }
    return view;
  }

  toolResult(id, content, isError) {
    let view = this.tools.get(id);
    if (!view) {
      view = this.tool(id, "tool", null);
      this.target("").append(view.el);
    }
    view.resultLabel.hidden = false;
    view.result.hidden = false;
    view.result.textContent = clip(pretty(content));
    view.status.textContent = isError ? "error" : "done";
    view.el.classList.toggle("error", !!isError);
    view.el.classList.add("finished");
  }

  approvalRequest(ev) {
    const id = String(ev.call_id || "");
    if (this.approvals.has(id)) {
      return;
    }
    const doc = this.doc;
    const card = el(doc, "section", "approval");
    card.dataset.callId = id;
    const title = el(doc, "h3", "approval-title");
    title.append("Approve ", el(doc, "span", "approval-header", ev.header || ev.tool || "a tool call"), "?");
    card.append(title);
    if (ev.diff) {
      const pre = el(doc, "pre", "diff");
      // The "--- a/f" and "+++ b/f" lines before the first hunk name the
      // file: shown muted like a hunk header, never as a removed or added line.
      let inHunk = false;
      for (const line of String(ev.diff).split("\n")) {
        inHunk = inHunk || line.startsWith("@@");
        const cls = !inHunk || line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
        pre.append(el(doc, "span", cls, line + "\n"));
      }
      card.append(pre);
    } else if (ev.plan) {
      // exit_plan_mode: the plan, as Markdown (DOM nodes only).
      const plan = el(doc, "div", "md plan");
      renderInto(plan, String(ev.plan));
      card.append(plan);
    } else if (ev.args && Object.keys(ev.args).length > 0) {
      card.append(el(doc, "pre", "args", pretty(ev.args)));
    }
    const actions = el(doc, "div", "approval-actions");
    const button = (decision, label, cls) => {
      const b = el(doc, "button", cls, label);
      b.type = "button";
      b.dataset.decision = decision;
      return b;
    };
    const allow = button("allow", "Approve", "primary");
    actions.append(allow);
    let always = null;
    if (ev.always) {
      always = button("always", "Always allow", "");
      always.title = "Allow this and later calls matching " + ev.always;
      actions.append(always);
    }
    const reason = el(doc, "input", "reason");
    reason.type = "text";
    reason.placeholder = "Reason (optional)";
    reason.setAttribute("aria-label", "Reason for denying");
    const deny = button("deny", "Deny", "danger");
    actions.append(reason, deny);
    card.append(actions);
    if (always) {
      // The pattern comes as `code`: shown as code, never as markup.
      const scope = el(doc, "p", "approval-scope", "Always allow covers ");
      const m = /^`([^`]*)`$/.exec(String(ev.always));
      scope.append(m ? el(doc, "code", "", m[1]) : String(ev.always), ".");
      card.append(scope);
    }
    const state = el(doc, "p", "approval-state");
    state.setAttribute("role", "status");
    card.append(state);
    const buttons = [allow, deny, always].filter(Boolean);
    const view = { card, buttons, reason, state };
    this.approvals.set(id, view);
    const decide = async (decision) => {
      buttons.forEach((b) => (b.disabled = true));
      reason.disabled = true;
      state.textContent = "Sending…";
      try {
        await this.hooks.approve(id, decision, decision === "deny" ? reason.value : "");
        if (!card.classList.contains("resolved")) {
          state.textContent = "Sent: " + decision + ".";
        }
      } catch (err) {
        state.textContent = "Could not send: " + err.message;
        if (err.status !== 404) {
          buttons.forEach((b) => (b.disabled = false));
          reason.disabled = false;
        }
      }
    };
    for (const b of buttons) {
      b.addEventListener("click", () => decide(b.dataset.decision));
    }
    reason.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        decide("deny");
      }
    });
    const call = this.tools.get(id);
    if (call) {
      call.el.after(card); // next to the call it asks about
    } else {
      this.target("").append(card);
    }
    this.hooks.announce("Approval needed: " + (ev.header || ev.tool || "a tool call"));
    const active = doc.activeElement;
    if (!active || active === doc.body || (active.tagName === "TEXTAREA" && active.value === "")) {
      allow.focus();
    }
  }

  approvalResolved(id, decision) {
    const view = this.approvals.get(String(id || ""));
    if (!view) {
      return;
    }
    const words = { allow: "Approved.", always: "Approved, and always for this pattern.", deny: "Denied.", timeout: "No answer in time: denied." };
    this.closeApproval(view, words[decision] || "Resolved: " + decision + ".");
  }

  closeApproval(view, text) {
    view.buttons.forEach((b) => (b.disabled = true));
    view.reason.disabled = true;
    view.card.classList.add("resolved");
    view.state.textContent = text;
  }

  result(ev) {
    const parts = [];
    if (ev.is_error) {
      parts.push(ev.subtype === "error_max_turns" ? "Stopped: too many steps" : "The turn failed");
    } else {
      parts.push("Done");
    }
    if (typeof ev.duration_ms === "number") {
      parts.push((ev.duration_ms / 1000).toFixed(1) + " s");
    }
    if (typeof ev.total_cost_usd === "number" && ev.total_cost_usd > 0) {
      parts.push("$" + ev.total_cost_usd.toFixed(4));
    }
    let text = parts.join(" · ");
    if (ev.is_error && (ev.errors || []).length > 0) {
      text += ": " + ev.errors.join("; ");
    }
    this.note(text, ev.is_error ? "result error" : "result");
    // A question the turn no longer waits for cannot be answered.
    for (const view of this.approvals.values()) {
      if (!view.card.classList.contains("resolved")) {
        this.closeApproval(view, "The turn ended without an answer.");
      }
    }
    this.hooks.onResult(ev);
  }
}

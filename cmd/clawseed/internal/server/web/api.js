// The page's client of the clawseed serve API (API26): requests with the
// bearer token, errors as APIError, and the text/event-stream reader.

const TOKEN_KEY = "clawseed.token";

// The bearer token lives in sessionStorage: it is gone when the tab closes
// and never reaches another origin's page.
export function getToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  } catch {
    return "";
  }
}

export function setToken(token) {
  try {
    if (token) {
      sessionStorage.setItem(TOKEN_KEY, token);
    } else {
      sessionStorage.removeItem(TOKEN_KEY);
    }
  } catch {
    // Storage refused (private mode, quota): the token lasts this page only.
  }
}

// An APIError is a non-2xx answer: its status, the error body's code and
// message ({"error":{"code","message"}}).
export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  static async from(resp) {
    let code = "http_" + resp.status;
    let message = resp.statusText || "request failed";
    try {
      const body = await resp.json();
      if (body && body.error) {
        code = String(body.error.code || code);
        message = String(body.error.message || code);
      }
    } catch {
      // Not the JSON error body (a proxy's page): the status says enough.
    }
    if (resp.status === 401) {
      message = "Not authorised: enter a valid token above. (" + message + ")";
    }
    return new APIError(resp.status, code, message);
  }
}

const enc = encodeURIComponent;

// The API's paths, relative to the page so a proxy may mount it anywhere.
export const paths = {
  sessions: (q) => "v1/sessions" + (q ? "?" + new URLSearchParams(q) : ""),
  session: (id) => "v1/sessions/" + enc(id),
  messages: (id) => "v1/sessions/" + enc(id) + "/messages",
  events: (id, after) => "v1/sessions/" + enc(id) + "/events?after=" + enc(String(after)),
  approval: (id, callID) => "v1/sessions/" + enc(id) + "/approvals/" + enc(callID),
  skill: (id, name) => "v1/sessions/" + enc(id) + "/skills/" + enc(name),
  cancel: (id) => "v1/sessions/" + enc(id) + "/cancel",
};

export class API {
  constructor(base) {
    this.base = base;
  }

  // request sends one request and returns the Response when it is 2xx; it
  // throws an APIError otherwise, a TypeError when the network fails. With
  // accept "text/event-stream" the caller reads the body as a stream.
  async request(method, path, body, signal, accept = "application/json") {
    const headers = { Accept: accept };
    const token = getToken();
    if (token) {
      headers.Authorization = "Bearer " + token;
    }
    const init = { method, headers, signal, cache: "no-store", credentials: "same-origin", redirect: "error" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const resp = await fetch(new URL(path, this.base), init);
    if (!resp.ok) {
      throw await APIError.from(resp);
    }
    return resp;
  }

  // json sends a request and decodes the answer (null for 202/204).
  async json(method, path, body, signal) {
    const resp = await this.request(method, path, body, signal);
    if (resp.status === 202 || resp.status === 204) {
      return null;
    }
    return resp.json();
  }

  // stream POSTs body (GETs when body is undefined) and returns the
  // Response of a text/event-stream.
  stream(path, body, signal) {
    return this.request(body === undefined ? "GET" : "POST", path, body, signal, "text/event-stream");
  }
}

// readEvents yields the events of a text/event-stream body as
// {id, event, data} (the WHATWG framing: fields per line, an event ends at
// a blank line, "data" lines joined by newlines, ":" lines are comments).
// It returns when the body ends; an event cut off by the end is dropped.
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let id = "";
  let event = "";
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      buf += value;
      for (;;) {
        const nl = buf.search(/[\r\n]/);
        if (nl < 0) {
          break;
        }
        if (buf[nl] === "\r" && nl === buf.length - 1) {
          break; // a "\r\n" may be split across chunks: wait for the next
        }
        const line = buf.slice(0, nl);
        buf = buf.slice(buf[nl] === "\r" && buf[nl + 1] === "\n" ? nl + 2 : nl + 1);
        if (line === "") {
          if (data.length > 0) {
            yield { id, event: event || "message", data: data.join("\n") };
          }
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) {
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) {
          val = val.slice(1);
        }
        if (field === "data") {
          data.push(val);
        } else if (field === "id") {
          id = val;
        } else if (field === "event") {
          event = val;
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

#!/usr/bin/env node
// A complete conformance adapter in another language: the API dispatcher's call queue, written from scratch in
// JavaScript (Node.js >= 16, no dependencies), speaking the JSON-lines protocol of docs/conformance.md.
//
//   ksspec conform --adapter "node examples/node-adapter/adapter.js"
//
// It declares the "dispatcher" area only, so the runner skips every other vector. The call queue follows
// pkg/scheduler/backend/api_dispatcher/call_queue.go (v1.35) and the spec (spec/dispatcher/call_queue.py, spec/dispatcher/api_calls.py):
// one call per pod UID, merged, replaced or skipped, executed in FIFO order; each caller is told its outcome.
// Version profiles: v1.34 caps executing calls at 16 and tells an in-flight call a call of another type replaced it;
// from v1.35 (PR #135180) such a call waits behind the in-flight one instead; pr141745 also tells every call on
// close and refuses adds after it. session.txt is a recorded exchange.
"use strict";

const readline = require("readline");

const PROFILES = {
  "v1.34": { maxInFlight: 16, closeNotifies: false, waitsBehind: false },
  "v1.35": { maxInFlight: null, closeNotifies: false, waitsBehind: true },
  "v1.36": { maxInFlight: null, closeNotifies: false, waitsBehind: true },
  "v1.37": { maxInFlight: null, closeNotifies: false, waitsBehind: true },
  "pr141745": { maxInFlight: null, closeNotifies: true, waitsBehind: true },
};
const RELEVANCE = { pod_status_patch: 1, pod_binding: 2 };

// ---- pod status and status-patch calls (api_calls.go) -------------------------------------------------------

const sameCondition = (a, b) =>
  a !== undefined && a.type === b.type && a.status === b.status && a.reason === b.reason && a.message === b.message;
const conditionNeedsUpdate = (status, c) => !sameCondition(status.conditions[c.type], c);
const nominationNeedsUpdate = (status, info) =>
  info !== null && info.mode === "Override" && status.nominated_node_name !== info.nominated_node_name;

function isNoOp(call) {
  if (call.call_type === "pod_binding") return false;
  if (nominationNeedsUpdate(call.status, call.nominating_info)) return false;
  return call.condition === null || !conditionNeedsUpdate(call.status, call.condition);
}

// Merge(old) into a new call of the same type: keep the old Override nomination and the old condition if the new
// call has none. Returns null when the old call is of another concrete type (never for in-tree types).
function merge(newCall, oldCall) {
  if (newCall.call_type === "pod_binding") return newCall;
  if (oldCall.call_type !== "pod_status_patch") return null;
  const merged = { ...newCall };
  const newMode = newCall.nominating_info ? newCall.nominating_info.mode : "Noop";
  if (newMode === "Noop" && oldCall.nominating_info && oldCall.nominating_info.mode === "Override") {
    merged.nominating_info = oldCall.nominating_info;
  }
  if (newCall.condition === null && oldCall.condition !== null) merged.condition = oldCall.condition;
  return merged;
}

// ---- decoding the vectors' JSON (fields equal to their default are left out) -------------------------------

const condition = (c) => ({ type: c.type, status: c.status, reason: c.reason || "", message: c.message || "" });

function podStatus(s) {
  const conditions = {};
  for (const [type, c] of Object.entries(s.conditions || {})) conditions[type] = condition(c);
  return { conditions, nominated_node_name: s.nominated_node_name || "" };
}

function decodeCall(c) {
  if (c.call_type === "pod_binding") return { call_type: "pod_binding", uid: c.uid, node_name: c.node_name };
  return {
    call_type: "pod_status_patch", uid: c.uid, status: podStatus(c.status),
    condition: c.condition ? condition(c.condition) : null,
    nominating_info: c.nominating_info
      ? { mode: c.nominating_info.mode, nominated_node_name: c.nominating_info.nominated_node_name || "" } : null,
    executed: Boolean(c.executed),
  };
}

function encodeCall(call) {
  if (call.call_type === "pod_binding") return { call_type: call.call_type, uid: call.uid, node_name: call.node_name };
  const conditions = Object.keys(call.status.conditions).sort().map((t) => call.status.conditions[t]);
  const out = { call_type: call.call_type, uid: call.uid,
    status: { conditions, nominated_node_name: call.status.nominated_node_name } };
  if (call.condition !== null) out.condition = call.condition;
  if (call.nominating_info !== null) out.nominating_info = call.nominating_info;
  out.executed = call.executed;
  return out;
}

// ---- the call queue -----------------------------------------------------------------------------------------

class CallQueue {
  constructor(profile) {
    this.profile = profile;
    this.calls = new Map(); // uid -> {call, caller}: the one call kept per object, pending or in flight
    this.fifo = []; // uids of pending calls, in execution order
    this.inFlight = new Map(); // uid -> {call, caller} being executed
    this.closed = false;
    this.callers = 0;
    this.told = []; // [caller, outcome kind] sent during the current step
    // scheduler_pending_async_api_calls by call type, moved where Kubernetes moves it
    this.pending = { pod_binding: 0, pod_status_patch: 0 };
  }

  tell(caller, kind) { this.told.push([caller, kind]); }

  canPop() {
    const limit = this.profile.maxInFlight;
    return this.fifo.length > 0 && !this.closed && (limit === null || this.inFlight.size < limit);
  }

  // APIDispatcher.Add: returns the outcome kind of the error Add returns (also told to the caller), or null.
  add(call) {
    const caller = this.callers++;
    if (this.closed && this.profile.closeNotifies) return this.refuse(caller, "Closed");
    let next = { call, caller };
    const old = this.calls.get(call.uid);
    if (old !== undefined) {
      if (RELEVANCE[call.call_type] < RELEVANCE[old.call.call_type]) return this.refuse(caller, "Skipped");
      if (old.call.call_type !== call.call_type) {
        if (!(this.profile.waitsBehind && this.inFlight.has(call.uid))) {
          if (!this.inFlight.has(call.uid)) { this.pending[old.call.call_type]--; this.pending[call.call_type]++; }
          this.tell(old.caller, "Overwritten");
        }
      } else {
        const merged = merge(call, old.call);
        if (merged === null) return this.refuse(caller, "MergeFailed");
        this.tell(old.caller, "Overwritten");
        next = { call: merged, caller };
      }
    }
    if (isNoOp(next.call) && !this.inFlight.has(call.uid)) {
      if (old !== undefined) this.removePending(call.uid);
      return this.refuse(caller, "Skipped");
    }
    this.calls.set(call.uid, next);
    if (old === undefined) { this.fifo.push(call.uid); this.pending[call.call_type]++; }
    return null;
  }

  refuse(caller, kind) { this.tell(caller, kind); return kind; }

  removePending(uid) {
    const removed = this.calls.get(uid);
    this.calls.delete(uid);
    if (!this.inFlight.has(uid)) {
      this.fifo = this.fifo.filter((u) => u !== uid);
      this.pending[removed.call.call_type]--;
    }
  }

  pop() {
    const uid = this.fifo.shift();
    const popped = this.calls.get(uid);
    this.pending[popped.call.call_type]--;
    if (popped.call.call_type === "pod_status_patch") popped.call = { ...popped.call, executed: true };
    this.inFlight.set(uid, popped);
  }

  // The execution of uid's call returned: finalize (forget it, or queue the newer call), then tell its caller.
  finish(uid, error) {
    const running = this.inFlight.get(uid);
    if (this.calls.get(uid).caller === running.caller) this.calls.delete(uid);
    else { this.fifo.push(uid); this.pending[this.calls.get(uid).call.call_type]++; }
    this.inFlight.delete(uid);
    this.tell(running.caller, error === null ? "Success" : "ExecutionError");
  }

  sync(uid, status) {
    const tracked = this.calls.get(uid);
    if (tracked === undefined) return;
    if (tracked.call.call_type === "pod_status_patch" && !tracked.call.executed) {
      tracked.call = { ...tracked.call, status };
    }
    if (isNoOp(tracked.call) && !this.inFlight.has(uid)) {
      this.removePending(uid);
      this.tell(tracked.caller, "Skipped");
    }
  }

  close() {
    if (this.closed) return;
    if (this.profile.closeNotifies) {
      [...this.calls.values()].sort((a, b) => a.caller - b.caller).forEach((t) => this.tell(t.caller, "Closed"));
    }
    this.closed = true;
  }

  observe() {
    const calls = {};
    for (const uid of [...this.calls.keys()].sort()) {
      const { call, caller } = this.calls.get(uid);
      calls[uid] = { caller, call: encodeCall(call) };
    }
    return { fifo: [...this.fifo], in_flight: [...this.inFlight.keys()].sort(), closed: this.closed, calls,
      told: this.told, can_pop: this.canPop(), metrics: { pending_calls: { ...this.pending } } };
  }
}

// ---- the protocol loop ----------------------------------------------------------------------------------------

let queue = null;

function step(op, args) {
  queue.told = [];
  let kind = null;
  switch (op) {
    case "add_call": kind = queue.add(decodeCall(args.call)); break;
    case "pop_call":
      if (!queue.canPop()) return { status: "error", kind: "NotEnabled", observation: queue.observe() };
      queue.pop(); break;
    case "finish_call":
      if (!queue.inFlight.has(args.uid)) return { status: "error", kind: "NotEnabled", observation: queue.observe() };
      queue.finish(args.uid, args.error === undefined ? null : args.error); break;
    case "sync_object": queue.sync(args.uid, podStatus(args.status)); break;
    case "close_dispatcher": queue.close(); break;
    default: return { status: "error", kind: "BadRequest", message: `unknown operation ${op}` };
  }
  const result = { status: kind === null ? "ok" : "error", observation: queue.observe() };
  if (kind !== null) result.kind = kind;
  return result;
}

function handle(request) {
  const id = request.id;
  switch (request.type) {
    case "hello":
      return { type: "hello", id, protocol_version: "1", implementation: "node-call-queue",
        capabilities: { areas: ["dispatcher"], profiles: Object.keys(PROFILES) } };
    case "reset":
      if (request.area !== "dispatcher" || !(request.profile in PROFILES)) {
        return { type: "failure", id, message: `cannot run area ${request.area} under ${request.profile}` };
      }
      queue = new CallQueue(PROFILES[request.profile]);
      return { type: "ready", id };
    case "step": return { type: "result", id, ...step(request.op, request.args) };
    case "bye": return { type: "bye", id };
    default: return { type: "failure", id, message: `unknown request type ${request.type}` };
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  process.stdout.write(JSON.stringify(handle(request)) + "\n");
  if (request.type === "bye") lines.close();
});

// dist/backend/operations.js
function op() {
  return (row) => {
    const write = row.method === "POST" || row.method === "PATCH";
    return {
      spec: false,
      body: write || row.method === "PUT" ? "json" : "none",
      query: "none",
      response: "json",
      idempotent: write,
      job: write || row.method === "PUT",
      async: false,
      role: "client",
      simulation: false,
      errors: [],
      ...row
    };
  };
}
var id = (value) => ({ id: value });
var OPERATIONS = {
  // -- policies (spec 4.1–4.3; reading and listing are extensions) -----------------------------
  createPolicy: op()({
    name: "createPolicy",
    method: "POST",
    path: "/policies",
    status: 201,
    resource: "policies",
    spec: true,
    what: "creating a policy",
    query: [],
    errors: ["DUPLICATE_POLICY"],
    backend: "createPolicy",
    encode: (input) => ({ json: input })
  }),
  importPolicies: op()({
    name: "importPolicies",
    method: "POST",
    path: "/policies/import",
    status: 200,
    resource: "policies",
    spec: true,
    what: "the policy import",
    body: "upload",
    query: [],
    async: true,
    errors: ["INVALID_FILE"],
    backend: "importPolicies",
    encode: (file, _options) => ({ upload: file })
  }),
  listPolicies: op()({
    name: "listPolicies",
    method: "GET",
    path: "/policies",
    status: 200,
    resource: "policies",
    what: "policy lists",
    query: "all",
    backend: "listPolicies",
    encode: (q) => ({ query: { status: q.status, limit: q.limit, after: q.after } })
  }),
  getPolicy: op()({
    name: "getPolicy",
    method: "GET",
    path: "/policies/{id}",
    status: 200,
    resource: "policies",
    what: "reading a policy",
    errors: ["NOT_FOUND"],
    backend: "getPolicy",
    encode: (ref) => ({ params: id(ref) })
  }),
  updatePolicy: op()({
    name: "updatePolicy",
    method: "PATCH",
    path: "/policies/{id}",
    status: 200,
    resource: "policies",
    spec: true,
    what: "updating a policy",
    query: [],
    errors: ["NOT_FOUND", "INVALID_TRANSITION"],
    backend: "updatePolicy",
    encode: (ref, patch) => ({ params: id(ref), json: patch })
  }),
  previewCancellation: op()({
    name: "previewCancellation",
    method: "GET",
    path: "/policies/{id}/cancel-preview",
    status: 200,
    resource: "policies",
    what: "cancellation previews",
    errors: ["NOT_FOUND"],
    backend: "previewCancellation",
    encode: (ref) => ({ params: id(ref) })
  }),
  // -- collections (spec 4.4, 4.5; the rest are extensions) ------------------------------------
  executeCollections: op()({
    name: "executeCollections",
    method: "POST",
    path: "/collections/execute",
    status: 202,
    resource: "collections",
    spec: true,
    what: "the collections run",
    query: [],
    errors: ["PERIOD_CLOSED"],
    backend: "executeCollections",
    encode: (input) => {
      const json = { period_month: input.period_month };
      if (input.policy_ids !== void 0)
        json.policy_ids = input.policy_ids;
      if (input.strategy !== void 0)
        json.strategy = input.strategy;
      return { json };
    }
  }),
  listCollections: op()({
    name: "listCollections",
    method: "GET",
    path: "/collections",
    status: 200,
    resource: "collections",
    what: "collection lists",
    query: "all",
    // A policy filter naming no policy of the client.
    errors: ["NOT_FOUND"],
    backend: "listCollections",
    encode: (q) => ({ query: { period_month: q.period_month, status: q.status, policy: q.policy, limit: q.limit, after: q.after } })
  }),
  getCollection: op()({
    name: "getCollection",
    method: "GET",
    path: "/collections/{id}",
    status: 200,
    resource: "collections",
    spec: true,
    what: "a collection",
    query: [],
    errors: ["NOT_FOUND"],
    backend: "getCollection",
    encode: (ref) => ({ params: id(ref) })
  }),
  explainCollection: op()({
    name: "explainCollection",
    method: "GET",
    path: "/collections/{id}/explain",
    status: 200,
    resource: "collections",
    what: "collection explanations",
    errors: ["NOT_FOUND"],
    backend: "explainCollection",
    encode: (ref) => ({ params: id(ref) })
  }),
  getExecution: op()({
    name: "getExecution",
    method: "GET",
    path: "/executions/{id}",
    status: 200,
    resource: "collections",
    what: "execution status",
    errors: ["NOT_FOUND"],
    backend: "getExecution",
    encode: (ref) => ({ params: id(ref) })
  }),
  // -- reports (spec 4.6; the attempts export is an extension) ---------------------------------
  collectionsReport: op()({
    name: "collectionsReport",
    method: "GET",
    path: "/reports/collections",
    status: 200,
    resource: "reports",
    spec: true,
    what: "the collections report",
    query: ["period_month", "format"],
    response: "download",
    periodState: true,
    backend: "collectionsReport",
    encode: (period, format) => ({ query: { period_month: period, format } })
  }),
  attemptsReport: op()({
    name: "attemptsReport",
    method: "GET",
    path: "/reports/attempts",
    status: 200,
    resource: "reports",
    what: "the attempts export",
    query: "all",
    response: "download",
    backend: "exportAttempts",
    encode: (period, format) => ({ query: { period_month: period, format } })
  }),
  // -- settlements (spec 4.7–4.9; list, preview, mark-paid and dispute are extensions) ---------
  createSettlement: op()({
    name: "createSettlement",
    method: "POST",
    path: "/settlements",
    status: 201,
    resource: "settlements",
    spec: true,
    what: "settlements",
    query: [],
    errors: ["PERIOD_OPEN", "SETTLEMENT_EXISTS", "NO_COLLECTIONS"],
    backend: "createSettlement",
    encode: (period) => ({ json: { period_month: period } })
  }),
  listSettlements: op()({
    name: "listSettlements",
    method: "GET",
    path: "/settlements",
    status: 200,
    resource: "settlements",
    what: "settlement lists",
    query: "all",
    backend: "listSettlements",
    encode: (q) => ({ query: { status: q.status, period_month: q.period_month } })
  }),
  previewSettlement: op()({
    name: "previewSettlement",
    method: "GET",
    path: "/settlements/preview",
    status: 200,
    resource: "settlements",
    what: "settlement previews",
    query: "all",
    errors: ["PERIOD_OPEN", "SETTLEMENT_EXISTS", "NO_COLLECTIONS"],
    backend: "previewSettlement",
    encode: (period) => ({ query: { period_month: period } })
  }),
  getSettlement: op()({
    name: "getSettlement",
    method: "GET",
    path: "/settlements/{id}",
    status: 200,
    resource: "settlements",
    spec: true,
    what: "a settlement",
    query: [],
    errors: ["NOT_FOUND"],
    backend: "getSettlement",
    encode: (ref) => ({ params: id(ref) })
  }),
  exportSettlement: op()({
    name: "exportSettlement",
    method: "GET",
    path: "/settlements/{id}/export",
    status: 200,
    resource: "settlements",
    spec: true,
    what: "the settlement export",
    query: ["lines"],
    response: "download",
    errors: ["NOT_FOUND"],
    backend: "exportSettlement",
    encode: (ref, options) => ({ params: id(ref), query: options?.lines === true ? { lines: "true" } : void 0 })
  }),
  markSettlementPaid: op()({
    name: "markSettlementPaid",
    method: "POST",
    path: "/settlements/{id}/mark-paid",
    status: 200,
    resource: "settlements",
    what: "recording payments",
    body: "json-optional",
    errors: ["NOT_FOUND", "INVALID_TRANSITION"],
    backend: "markSettlementPaid",
    encode: (ref, options) => ({
      params: id(ref),
      json: options?.reference === void 0 ? {} : { reference: options.reference }
    })
  }),
  disputeSettlement: op()({
    name: "disputeSettlement",
    method: "POST",
    path: "/settlements/{id}/dispute",
    status: 200,
    resource: "settlements",
    what: "disputes",
    errors: ["NOT_FOUND", "INVALID_TRANSITION", "DISPUTE_WINDOW_CLOSED"],
    backend: "disputeSettlement",
    encode: (ref, reason) => ({ params: id(ref), json: { reason } })
  }),
  // -- the service itself -------------------------------------------------------------------
  whoami: op()({
    name: "whoami",
    method: "GET",
    path: "/whoami",
    status: 200,
    resource: "meta",
    what: "whoami",
    backend: null,
    encode: () => ({})
  }),
  openapi: op()({
    name: "openapi",
    method: "GET",
    path: "/openapi.json",
    status: 200,
    resource: "meta",
    what: "the OpenAPI document",
    backend: null,
    encode: () => ({})
  }),
  getOperation: op()({
    name: "getOperation",
    method: "GET",
    path: "/operations/{id}",
    status: 200,
    resource: "operations",
    what: "operations",
    errors: ["NOT_FOUND"],
    backend: null,
    encode: (operationId) => ({ params: id(operationId) })
  }),
  // -- the simulation: the virtual clock and the simulated bank ---------------------------------
  // Reading the clock is open to every key (a client needs the date to know which periods are
  // open); moving it, and the simulated bank, act on the whole store: operator keys only.
  getClock: op()({
    name: "getClock",
    method: "GET",
    path: "/clock",
    status: 200,
    resource: "clock",
    what: "the virtual clock",
    simulation: true,
    backend: "getClock",
    encode: () => ({})
  }),
  setClock: op()({
    name: "setClock",
    method: "PUT",
    path: "/clock",
    status: 200,
    resource: "clock",
    what: "setting the virtual clock",
    role: "operator",
    simulation: true,
    errors: ["CLOCK_LOCKED", "CLOCK_BACKWARDS"],
    backend: "setClock",
    encode: (date) => ({ json: { date } })
  }),
  previewAdvance: op()({
    name: "previewAdvance",
    method: "GET",
    path: "/clock/preview",
    status: 200,
    resource: "clock",
    what: "advance previews",
    query: "all",
    role: "operator",
    simulation: true,
    errors: ["CLOCK_BACKWARDS"],
    backend: "previewAdvance",
    encode: (target) => ({ query: { days: target.days, to: target.to, to_month_end: target.to_month_end } })
  }),
  advanceClock: op()({
    name: "advanceClock",
    method: "POST",
    path: "/clock/advance",
    status: 200,
    resource: "clock",
    what: "advancing the virtual clock",
    async: true,
    role: "operator",
    simulation: true,
    // CONFLICT: another advance took the store over, judging this one abandoned.
    errors: ["CLOCK_BACKWARDS", "CONFLICT"],
    backend: "advanceClock",
    encode: (target, _options) => ({ json: target })
  }),
  seedBank: op()({
    name: "seedBank",
    method: "POST",
    path: "/bank/seed",
    status: 200,
    resource: "bank",
    what: "the simulated bank",
    role: "operator",
    simulation: true,
    errors: ["SEED_LOCKED"],
    backend: "seedBank",
    encode: (seed) => ({ json: { seed } })
  }),
  importBankTransactions: op()({
    name: "importBankTransactions",
    method: "POST",
    path: "/bank/import",
    status: 200,
    resource: "bank",
    what: "the simulated bank",
    body: "upload",
    async: true,
    role: "operator",
    simulation: true,
    errors: ["INVALID_FILE"],
    backend: "importBankTransactions",
    encode: (file, _options) => ({ upload: file })
  }),
  showBankAccount: op()({
    name: "showBankAccount",
    method: "GET",
    path: "/bank/accounts/{customer_id}",
    status: 200,
    resource: "bank",
    what: "the simulated bank",
    role: "operator",
    simulation: true,
    errors: ["NOT_FOUND"],
    backend: "showBankAccount",
    encode: (customerId) => ({ params: { customer_id: customerId } })
  })
};
var OPERATION_LIST = Object.values(OPERATIONS);
function idless(row) {
  return !row.path.includes("{") && !row.errors.includes("NOT_FOUND");
}

// dist/backend/wire.js
import { createHash } from "node:crypto";
var RESPOND_ASYNC = "respond-async, wait=1";
function buildRequest(row, ...args) {
  const wire = row.encode(...args);
  const path = row.path.replace(/\{(\w+)\}/g, (_, name) => {
    const value = wire.params?.[name];
    if (value === void 0)
      throw new TypeError(`${row.name}: no value for the path parameter {${name}}`);
    return encodeURIComponent(value);
  });
  const request = {
    method: row.method,
    path,
    status: row.status,
    idempotencyKey: row.idempotent,
    prefer: row.async ? RESPOND_ASYNC : null,
    route: { what: `${row.what} (${row.method} ${row.path})`, extension: !row.spec, idless: idless(row) }
  };
  if (wire.query !== void 0)
    request.query = wire.query;
  if (wire.json !== void 0)
    request.json = wire.json;
  if (wire.upload !== void 0)
    request.upload = wire.upload;
  return request;
}
function canonical(value) {
  if (value === null || typeof value !== "object")
    return JSON.stringify(value) ?? "null";
  if (Array.isArray(value))
    return `[${value.map(canonical).join(",")}]`;
  const obj = value;
  return `{${Object.keys(obj).sort().filter((k) => obj[k] !== void 0).map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(",")}}`;
}
function requestHash(method, path, body, fileSha256) {
  const h = createHash("sha256");
  h.update(`${method}
${path}
`);
  h.update(fileSha256 !== void 0 ? `file:${fileSha256}` : `json:${canonical(body ?? null)}`);
  return h.digest("hex");
}

export {
  OPERATIONS,
  OPERATION_LIST,
  buildRequest,
  requestHash
};

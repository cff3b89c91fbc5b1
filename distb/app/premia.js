import {
  Ui,
  createContext,
  lazyAction
} from "../chunk-43RJ6XF5.js";
import "../chunk-TQX5C6XS.js";
import {
  ATTEMPT_FIELDS,
  COLLECTION_FIELDS,
  KEY_FIELDS,
  POLICY_FIELDS,
  PROFILE_FIELDS,
  SETTING_FIELDS,
  SETTLEMENT_FIELDS,
  fieldsOption,
  formatOption
} from "../chunk-EDLGZEVV.js";
import "../chunk-MRLEVLPO.js";
import {
  DEFAULT_STRATEGY,
  STRATEGY_NAMES
} from "../chunk-F6XEBFEX.js";
import {
  COLLECTION_STATUSES,
  SETTLEMENT_STATUSES
} from "../chunk-LWLCY3JA.js";
import "../chunk-K26TIJNB.js";
import "../chunk-7L3A4ARV.js";
import "../chunk-CXYRJJKB.js";
import "../chunk-7UDSVXC4.js";
import {
  stringifyJson
} from "../chunk-MHVTT2HV.js";
import "../chunk-JX2JAKWC.js";
import "../chunk-RB5YZ7WD.js";
import "../chunk-7BKCKV6J.js";
import {
  ExitCode,
  PremiaError,
  usageError
} from "../chunk-U6UK7MPY.js";

// dist/cli/main.js
import { Command, CommanderError, InvalidArgumentError, Option as Option6 } from "commander";
import { createRequire } from "node:module";

// dist/cli/commands/bank/index.js
function registerBank(program, ctx, state) {
  const bank = program.command("bank").description("the simulated bank of local mode (or of a service running on it)");
  bank.command("import").description("load bank transactions (CSV header customer_id,date,amount,description; - reads stdin)").argument("<file>").action(lazyAction(ctx, state, () => import("../import-GTQEQYWZ.js"), { writes: true, createsStore: true }));
  bank.command("show").description("a customer's balance, recent transactions and detected income pattern").argument("<customer_id>").action(lazyAction(ctx, state, () => import("../show-PEQZEANK.js")));
  bank.command("seed").description("set the seed of generated accounts (only before the first collections run)").argument("<seed>").action(lazyAction(ctx, state, () => import("../seed-DTFEW2EZ.js"), { writes: true, createsStore: true }));
}

// dist/cli/commands/calendar/index.js
function registerCalendar(program, ctx, state) {
  const calendar = program.command("calendar").description("the business-day calendar of the local store: its base (premia settings set calendar za|none) and the holidays of a year").option("--year <yyyy>", "the year whose holidays to list (default: the clock's year)").action(lazyAction(ctx, state, () => import("../show-TD3PTPTA.js"), { localOnly: "premia calendar" }));
  calendar.command("import").description("add holidays (days without debits or pay) from a CSV file with the header date,name, on top of the base calendar").argument("<file>", "the CSV file (date as YYYY-MM-DD, name optional), or - for stdin").option("--replace", "replace the dates imported before instead of adding to them").action(lazyAction(ctx, state, () => import("../import-D45T4N7F.js"), { writes: true, localOnly: "premia calendar import" }));
}

// dist/cli/commands/clock/index.js
function registerClock(program, ctx, state) {
  const clock = program.command("clock").description("the virtual clock of local mode (or of a service on the simulated bank): the last day whose business has run").action(lazyAction(ctx, state, () => import("../show-PTH4RU6M.js")));
  clock.command("show").description("the clock: its date, whether a run has locked it, the seed (the same as `premia clock`)").action(lazyAction(ctx, state, () => import("../show-PTH4RU6M.js")));
  clock.command("advance").description("live through the following days (the engine collects; a month end closes its period)").option("--days <n>", "this many days").option("--to <date>", "up to and including this date (YYYY-MM-DD)").option("--to-month-end", "to the end of the month of the next day").option("--dry-run", "say what the advance would do (days, periods closed, collections open in them, debits planned) and change nothing").addHelpText("after", `
An advance that closes a period asks first on a terminal (global --yes skips the question);
without a terminal it goes ahead, unless it would close more than one period: that needs --yes.
Ctrl-C stops it after the day being committed (exit 130); a second Ctrl-C quits at once.`).action(lazyAction(ctx, state, () => import("../advance-YNCCDDNQ.js"), { writes: true }));
  clock.command("set").description("set the clock (only before the first collections run)").argument("<date>", "YYYY-MM-DD").action(lazyAction(ctx, state, () => import("../set-NF2YO3CK.js"), { writes: true, createsStore: true }));
}

// dist/cli/commands/collections/index.js
import { Option } from "commander";
function registerCollections(program, ctx, state) {
  const collections = program.command("collections").description("run the monthly collections and follow their results");
  collections.command("execute").description("trigger the collections run of a period (the engine then collects through the month)").requiredOption("--period <YYYY-MM>", "the period to collect").option("--policy <policy...>", "only these policies (ids or policy numbers); default: every active policy").addOption(new Option("--strategy <name>", `collection strategy (default: ${DEFAULT_STRATEGY})`).choices(STRATEGY_NAMES)).action(lazyAction(ctx, state, () => import("../execute-P2OGA6QK.js"), { writes: true }));
  collections.command("get").description("show one collection").argument("<collection_id>").action(lazyAction(ctx, state, () => import("../get-YFJZKKZI.js")));
  collections.command("list").description("list a period's collections in policy-number order").requiredOption("--period <YYYY-MM>", "the period").addOption(new Option("--status <status>", "only this status").choices(COLLECTION_STATUSES)).option("--policy <policy>", "only this policy (id or policy number)").option("--limit <n>", "at most this many (default 100, at most 10000)").option("--after <policy_number>", "start after this policy number (next page)").addOption(formatOption()).addOption(fieldsOption(COLLECTION_FIELDS)).action(lazyAction(ctx, state, () => import("../list-H3RTSMN6.js")));
  collections.command("attempts").description("every debit attempt of a period, in date and policy-number order").requiredOption("--period <YYYY-MM>", "the period").addOption(new Option("--format <format>", "csv (the export, the default), json (the export) or table").choices(["csv", "json", "table"]).default("csv")).addOption(fieldsOption(ATTEMPT_FIELDS)).action(lazyAction(ctx, state, () => import("../attempts-PZ6I6WKD.js")));
  collections.command("explain").description("why each attempt of a collection was made when it was, and for how much").argument("<collection_id>").action(lazyAction(ctx, state, () => import("../explain-XXHMNRAS.js")));
  collections.command("execution").description("a collections run's status and counts by collection status").argument("<execution_id>").action(lazyAction(ctx, state, () => import("../execution-TQL5MGR5.js")));
}

// dist/cli/commands/keys/index.js
function registerKeys(program, ctx, state) {
  const keys = program.command("keys").description("API keys of 'premia serve' (operator commands on the local store)");
  keys.command("create").description("create a key for a client (created if new); the key is printed once").option("--client <name>", "the client (organisation) the key acts for").option("--operator", "an operator key: may also move the virtual clock and drive the simulated bank (acts for --client, else for the Local client)").action(lazyAction(ctx, state, () => import("../create-WXEUMOM2.js"), { writes: true, createsStore: true, localOnly: "premia keys create" }));
  keys.command("list").description("list keys, redacted to their prefix and last 4 characters").addOption(formatOption()).addOption(fieldsOption(KEY_FIELDS)).action(lazyAction(ctx, state, () => import("../list-Y5MHJCY6.js"), { localOnly: "premia keys list" }));
  keys.command("revoke").description("revoke a key: requests with it are refused at once").argument("<key_id>", "the key id (from keys list)").action(lazyAction(ctx, state, () => import("../revoke-MWN5ZKTB.js"), { writes: true, localOnly: "premia keys revoke" }));
}

// dist/cli/commands/login/index.js
function registerLogin(program, ctx, state) {
  program.command("login").description("save a remote profile: asks for the API key (masked), checks it with the service, keeps it in a private config file").addHelpText("after", `
Uses the global --profile NAME (default "default") and --base-url URL (the service, with /v1).
On a terminal the key is asked for; without one it is read from PREMIA_API_KEY.
The profile is saved in $XDG_CONFIG_HOME/premia/config.json (else ~/.config/premia/config.json), mode 0600.`).action(lazyAction(ctx, state, () => import("../login-XUV77JME.js")));
}

// dist/cli/commands/logout/index.js
function registerLogout(program, ctx, state) {
  program.command("logout").description('remove a saved remote profile and its key (the global --profile NAME; default "default")').action(lazyAction(ctx, state, () => import("../logout-GUIBEYMJ.js")));
}

// dist/cli/commands/policies/index.js
import { Option as Option2 } from "commander";
function registerPolicies(program, ctx, state) {
  const policies = program.command("policies").description("create, import, update and read policies");
  policies.command("create").description("create one policy").option("--policy-number <number>", "the client's policy identifier").option("--customer-id <id>", "customer identifier").option("--external-ref <ref>", "the client's own customer reference").option("--product-code <code>", "product code (A-Z 0-9 _ -)").option("--amount <amount>", "monthly premium, e.g. 199.50").action(lazyAction(ctx, state, () => import("../create-CAPRKKJ6.js"), { writes: true, createsStore: true }));
  policies.command("import").description("bulk-import policies from a CSV file (- reads stdin)").argument("<file>", "CSV with header customer_id,external_customer_ref,policy_number,product_code,collection_amount").action(lazyAction(ctx, state, () => import("../import-RFTRUIGQ.js"), { writes: true, createsStore: true }));
  policies.command("update").description("change the premium (from next month) and/or the status of a policy").argument("<policy>", "policy id or policy number").option("--amount <amount>", "new monthly premium; applies from the next month").addOption(new Option2("--status <status>", "new status").choices(["active", "lapsed", "cancelled"])).action(lazyAction(ctx, state, () => import("../update-PS6T4HYF.js"), { writes: true }));
  policies.command("get").description("show one policy with its history").argument("<policy>", "policy id or policy number").action(lazyAction(ctx, state, () => import("../get-7EA3CXUJ.js")));
  policies.command("list").description("list policies in policy-number order").addOption(new Option2("--status <status>", "only this status").choices(["active", "lapsed", "cancelled"])).option("--limit <n>", "at most this many (default 100, at most 10000)").option("--after <policy_number>", "start after this policy number (next page)").addOption(formatOption()).addOption(fieldsOption(POLICY_FIELDS)).action(lazyAction(ctx, state, () => import("../list-AAY46BRU.js")));
}

// dist/cli/commands/completion/index.js
import { Argument } from "commander";
function registerCompletion(program, ctx, state) {
  program.command("completion").description("print a shell completion script (commands, options, choices, file names)").addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh", "fish"])).addHelpText("after", `
Load it in the running shell:
  bash  source <(premia completion bash)
  zsh   source <(premia completion zsh)        (after compinit)
  fish  premia completion fish | source
Or save it where the shell looks for completions (see the examples).`).action(lazyAction(ctx, state, async () => ({ default: (await import("../completion-D52TPQQO.js")).completionVerb(program) })));
}

// dist/cli/commands/db/index.js
function registerDb(program, ctx, state) {
  const db = program.command("db").description("whole stores: copy a store file to PostgreSQL (or back) and verify the copy");
  db.command("copy").description("copy every table of one store into another in one transaction, then verify row counts and money totals").requiredOption("--from <store>", "the store to copy: a file (premia.db) or a postgres:// URL").requiredOption("--to <store>", "the store to copy into (empty; --yes replaces what it holds): a postgres:// URL or a file").action(lazyAction(ctx, state, () => import("../copy-W2OGZHDM.js")));
}

// dist/cli/commands/engine/index.js
function registerEngine(program, ctx, state) {
  const engine = program.command("engine").description("the collections engine on a shared PostgreSQL store: extra workers for its days");
  engine.command("work").description("live the customer shards of the days clock advances open on this PostgreSQL store (engine.shards > 1), until stopped").option("--until <date>", "stop once the clock has reached this date (YYYY-MM-DD) and no shard is pending").action(lazyAction(ctx, state, () => import("../work-DPMRIRR5.js"), { localOnly: "premia engine work" }));
}

// dist/cli/commands/fixtures/index.js
function registerFixtures(program, ctx, state) {
  const fixtures = program.command("fixtures").description("the example files premia ships (a book of policies, a bank history, a file with mistakes)");
  fixtures.command("copy").description("copy policies.csv, bank-transactions.csv and policies-invalid.csv into a directory (made if missing)").argument("<dir>", "where to put them").option("-f, --force", "replace files already there (as the global --yes does)").addHelpText("after", "\nFiles already there are not replaced unless --force (or the global --yes) is given: exit 6, nothing copied.").action(lazyAction(ctx, state, () => import("../copy-2AICMMM7.js")));
}

// dist/cli/commands/profiles/index.js
function registerProfiles(program, ctx, state) {
  program.command("profiles").description("list the saved remote profiles (keys redacted to their last 4 characters) and mark the one in use").addOption(formatOption()).addOption(fieldsOption(PROFILE_FIELDS)).action(lazyAction(ctx, state, () => import("../profiles-3GZIAHFW.js")));
}

// dist/cli/commands/serve/index.js
function registerServe(program, ctx, state) {
  program.command("serve").description("serve the /v1 HTTP API over the local store (keys: premia keys create)").option("--host <host>", "address to listen on (loopback unless told otherwise)", "127.0.0.1").option("--port <port>", "TCP port (0 picks a free one)", "8080").option("--json-limit <bytes>", "largest JSON body (default 1048576)").option("--upload-limit <bytes>", "largest uploaded file (default 104857600)").option("--rate-limit <n>", "requests per API key per minute, 0 for no limit (default 600)").option("--no-simulation", "no virtual clock and no simulated bank: their endpoints answer 404 (a real deployment)").action(lazyAction(ctx, state, () => import("../serve-W4VTOLEQ.js"), { createsStore: true, localOnly: "premia serve" }));
}

// dist/cli/commands/reports/index.js
import { Option as Option3 } from "commander";
function registerReports(program, ctx, state) {
  const reports = program.command("reports").description("export the results of a period");
  reports.command("collections").description("the collection results of a period, one row per collection, on stdout").requiredOption("--period <YYYY-MM>", "the period to report").addOption(new Option3("--format <format>", "csv (default) or json").choices(["csv", "json"])).option("-o, --output <file>", "write to this file (or into this directory) atomically, instead of stdout").option("--require-closed", "refuse (exit 6, nothing written) unless the period has closed: for cron").action(lazyAction(ctx, state, () => import("../collections-TJBVAB4R.js")));
  reports.command("summary").description("the month in pictures: collected vs due, collected by day, by income pattern, failures by reason, the settlement").requiredOption("--period <YYYY-MM>", "the period to summarise").option("--html <file>", "write the month as one self-contained HTML page (charts, and the unpaid and partly paid policies) to this file or into this directory, instead of the text").addHelpText("after", `
Plain ASCII when stdout is not a terminal or under NO_COLOR; --json gives the same figures.

Examples:
  premia reports summary --period 2026-11
  premia reports summary --period 2026-11 --html november.html`).action(lazyAction(ctx, state, () => import("../summary-E7Y7FVJO.js")));
}

// dist/cli/commands/settings/index.js
function registerSettings(program, ctx, state) {
  const settings = program.command("settings").description("the engine settings of the local store (max failed attempts, lapse rule, calendar): list them, with their defaults").addOption(formatOption()).addOption(fieldsOption(SETTING_FIELDS)).action(lazyAction(ctx, state, () => import("../list-4SDDVRQR.js"), { localOnly: "premia settings" }));
  settings.command("set").description("change a setting of the local store (takes effect from the next day the clock lives through)").argument("<key>", "the setting (premia settings lists them)").argument("<value>", "a whole number within the setting's range").action(lazyAction(ctx, state, () => import("../set-FUNNUGI5.js"), { writes: true, localOnly: "premia settings set" }));
}

// dist/cli/commands/settlements/index.js
import { Option as Option4 } from "commander";
function registerSettlements(program, ctx, state) {
  const settlements = program.command("settlements").description("monthly settlement statements: create, read, export, pay, dispute");
  settlements.command("create").description("generate the statement of a closed period (total collected, fees, VAT, net)").requiredOption("--period <YYYY-MM>", "the period to settle").action(lazyAction(ctx, state, () => import("../create-S4V75I6K.js"), { writes: true }));
  settlements.command("get").description("show one statement").argument("<settlement>", "settlement id or settlement number (SETTLE-YYYY-MM-NNN)").action(lazyAction(ctx, state, () => import("../get-Z7V2QIZQ.js")));
  settlements.command("export").description("the statement as CSV (header and one row), or with --lines one row per collection").argument("<settlement>", "settlement id or settlement number").option("-o, --output <file>", "write to this file (or into this directory) atomically, instead of stdout").option("--lines", "one row per collection with its share of each fee; columns sum to the statement").action(lazyAction(ctx, state, () => import("../export-WU5BRJ4J.js")));
  settlements.command("list").description("list statements, newest first").addOption(new Option4("--status <status>", "only this status").choices([...SETTLEMENT_STATUSES])).option("--period <YYYY-MM>", "only this period").addOption(formatOption()).addOption(fieldsOption(SETTLEMENT_FIELDS)).action(lazyAction(ctx, state, () => import("../list-MLU4R5JI.js")));
  settlements.command("mark-paid").description("record that the net amount was paid (pending \u2192 paid), on the clock date").argument("<settlement>", "settlement id or settlement number").option("--reference <ref>", "the EFT's reference, 1-35 of A-Z 0-9 - / (default: the statement's payment reference)").action(lazyAction(ctx, state, () => import("../mark-paid-SVBFEPED.js"), { writes: true }));
  settlements.command("dispute").description("dispute a statement (pending or paid \u2192 disputed) within 30 days of its payment date").argument("<settlement>", "settlement id or settlement number").requiredOption("--reason <text>", "what is disputed (1-500 characters)").action(lazyAction(ctx, state, () => import("../dispute-URN4NSWA.js"), { writes: true }));
}

// dist/cli/commands/simulate/index.js
import { Option as Option5 } from "commander";
function registerSimulate(program, ctx, state) {
  program.command("simulate").description("run the monthly cycle day by day on a local store (the shipped fixtures by default) and summarise it").option("--period <YYYY-MM>", "first period to collect", "2026-11").option("--months <n>", "consecutive months to run", "1").option("--policies <file>", "policy CSV (default: fixtures/policies.csv)").option("--bank <file>", "bank transactions CSV (default: fixtures/bank-transactions.csv; 'none' for generated accounts only)").addOption(new Option5("--strategy <name>", "collection strategy").choices(STRATEGY_NAMES).default(DEFAULT_STRATEGY)).option("--out <dir>", "where to write each period's files (in <dir>/<period>/)", "premia-out").addHelpText("after", `
Global options simulate uses (before or after 'simulate'):
  --seed <n>   seed of the simulation (default: 1); the same seed and files give the same output
  --db <path>  run in this store file instead of a fresh temporary one; it must have no
               collections run yet (PREMIA_DB is ignored: only --db chooses a store)
  --json       print the summary as JSON on stdout`).action(lazyAction(ctx, state, () => import("../simulate-SOMBZZGH.js"), { createsStore: true }));
}

// dist/cli/commands/whoami/index.js
function registerWhoami(program, ctx, state) {
  program.command("whoami").description("which mode, store or service, profile, client and key (redacted) the commands use").action(lazyAction(ctx, state, () => import("../whoami-RYJHPUZL.js")));
}

// dist/cli/commands/index.js
function registerCommands(program, ctx, state) {
  registerPolicies(program, ctx, state);
  registerCollections(program, ctx, state);
  registerClock(program, ctx, state);
  registerBank(program, ctx, state);
  registerKeys(program, ctx, state);
  registerSettings(program, ctx, state);
  registerCalendar(program, ctx, state);
  registerServe(program, ctx, state);
  registerDb(program, ctx, state);
  registerEngine(program, ctx, state);
  registerReports(program, ctx, state);
  registerSettlements(program, ctx, state);
  registerSimulate(program, ctx, state);
  registerLogin(program, ctx, state);
  registerLogout(program, ctx, state);
  registerWhoami(program, ctx, state);
  registerProfiles(program, ctx, state);
  registerFixtures(program, ctx, state);
  registerCompletion(program, ctx, state);
}

// dist/cli/commands/help.js
var EXAMPLES = {
  policies: ["premia policies import policies.csv", "premia policies list --status active"],
  "policies create": ["premia policies create --policy-number POL-1 --customer-id C1 --external-ref ACME-1 --product-code LIFE --amount 199.50"],
  "policies import": ["premia policies import policies.csv", "premia --json policies import - < policies.csv"],
  "policies update": ["premia policies update POL-2026001 --amount 910.00", "premia policies update POL-2026001 --status cancelled"],
  "policies get": ["premia policies get POL-2026001"],
  "policies list": ["premia policies list --status active --limit 20", "premia policies list --format csv --fields policy_number,collection_amount > policies.csv"],
  collections: ["premia collections execute --period 2026-11", "premia collections list --period 2026-11 --status UNPAID"],
  "collections execute": ["premia collections execute --period 2026-11", "premia collections execute --period 2026-11 --policy POL-2026001 --strategy naive"],
  "collections get": ["premia collections get 0b4c2a1e-6f1d-4c7e-9a3b-2d5e8f7a1c90"],
  "collections list": ["premia collections list --period 2026-11 --status PAID_PARTIAL", "premia collections list --period 2026-11 --format json --fields policy_number,collection_status"],
  "collections attempts": ["premia collections attempts --period 2026-11 > attempts-2026-11.csv", "premia collections attempts --period 2026-11 --format table --fields policy_number,date,amount,outcome"],
  "collections explain": ["premia collections explain 0b4c2a1e-6f1d-4c7e-9a3b-2d5e8f7a1c90"],
  "collections execution": ["premia collections execution 7d2f0c3b-1a4e-4b6d-8c9f-0e1a2b3c4d5e"],
  clock: ["premia clock", "premia clock advance --to-month-end"],
  "clock show": ["premia clock show"],
  "clock advance": ["premia clock advance --days 1", "premia clock advance --to 2026-11-30 --dry-run"],
  "clock set": ["premia clock set 2026-10-31"],
  bank: ["premia bank import bank-transactions.csv", "premia bank show C100001"],
  calendar: ["premia calendar --year 2027", "premia calendar import company-days.csv"],
  "calendar import": ["premia calendar import company-days.csv", "premia calendar import holidays-2027.csv --replace"],
  "bank import": ["premia bank import bank-transactions.csv"],
  "bank show": ["premia bank show C100001"],
  "bank seed": ["premia bank seed 7"],
  keys: ["premia keys create --client acme", "premia keys list"],
  "keys create": ["premia keys create --client acme", "premia keys create --operator"],
  "keys list": ["premia keys list", "premia keys list --format csv"],
  "keys revoke": ["premia keys revoke 5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],
  settings: ["premia settings", "premia settings set lapse.unpaid_periods 3"],
  "settings set": ["premia settings set lapse.unpaid_periods 3"],
  db: ["premia db copy --from ./premia.db --to postgres://premia@db.example.com/premia"],
  "db copy": ["premia db copy --from ./premia.db --to postgres://premia@db.example.com/premia", "premia --yes db copy --from postgres://premia@db.example.com/premia --to ./back.db"],
  engine: ["premia --db postgres://premia@db.example.com/premia engine work"],
  "engine work": ["premia --db postgres://premia@db.example.com/premia engine work", "premia --db postgres://premia@db.example.com/premia engine work --until 2026-11-30"],
  serve: ["premia serve --port 8080", "premia --db /srv/premia.db serve --host 0.0.0.0 --no-simulation"],
  reports: ["premia reports collections --period 2026-11 > collections-2026-11.csv", "premia reports summary --period 2026-11"],
  "reports collections": ["premia reports collections --period 2026-11 > collections-2026-11.csv", "premia reports collections --period 2026-11 --require-closed --output /srv/reports/"],
  "reports summary": ["premia reports summary --period 2026-11", "premia reports summary --period 2026-11 --html month-2026-11.html"],
  settlements: ["premia settlements create --period 2026-11", "premia settlements list --status pending"],
  "settlements create": ["premia settlements create --period 2026-11"],
  "settlements get": ["premia settlements get SETTLE-2026-11-001"],
  "settlements export": ["premia settlements export SETTLE-2026-11-001 --output statements/", "premia settlements export SETTLE-2026-11-001 --lines > lines.csv"],
  "settlements list": ["premia settlements list --status pending", "premia settlements list --format csv --fields settlement_number,net_amount"],
  "settlements mark-paid": ["premia settlements mark-paid SETTLE-2026-11-001"],
  "settlements dispute": ['premia settlements dispute SETTLE-2026-11-001 --reason "fee charged twice"'],
  simulate: ["premia simulate", "premia simulate --months 3 --seed 7 --out /tmp/sim"],
  login: ["premia login --base-url http://localhost:8080/v1", "premia login --profile staging --base-url https://premia.example.com/v1"],
  logout: ["premia logout", "premia logout --profile staging"],
  whoami: ["premia whoami", "premia --profile staging whoami"],
  profiles: ["premia profiles", "premia profiles --format json"],
  fixtures: ["premia fixtures copy ./premia-fixtures"],
  "fixtures copy": ["premia fixtures copy ./premia-fixtures", "premia fixtures copy ."],
  completion: ["premia completion bash > ~/.local/share/bash-completion/completions/premia", 'premia completion zsh > "${fpath[1]}/_premia"'],
  help: ["premia help clock advance", "premia help policies"]
};
var GLOBAL_OPTIONS_LINE = "Global options (--db, --json, --quiet, --yes, remote mode and more): premia --help";
function commandWords(command) {
  const words = [];
  for (let c = command; c?.parent; c = c.parent)
    words.unshift(c.name());
  return words.join(" ");
}
function allCommands(root) {
  const out = [];
  const walk = (c) => {
    for (const sub of c.commands) {
      out.push(sub);
      walk(sub);
    }
  };
  walk(root);
  return out;
}
function applyHelpConventions(program) {
  program.helpCommand(false);
  program.command("help").description("show the help of a command: premia help clock advance").argument("[command...]", "the command (its words)").action((words) => {
    let target = program;
    for (const word of words) {
      const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
      if (!next) {
        const known = target.commands.map((c) => c.name()).filter((n) => n !== "help");
        const where = target === program ? "premia" : `premia ${commandWords(target)}`;
        throw usageError(`'${word}' is not a command of ${where}; its commands are: ${known.join(", ")}.`);
      }
      target = next;
    }
    target.outputHelp();
  });
  for (const command of allCommands(program)) {
    command.helpCommand(false);
    const examples = EXAMPLES[commandWords(command)] ?? [];
    const lines = examples.length === 0 ? [] : ["", examples.length === 1 ? "Example:" : "Examples:", ...examples.map((e) => `  ${e}`)];
    command.addHelpText("after", [...lines, "", GLOBAL_OPTIONS_LINE].join("\n"));
  }
}

// dist/cli/main.js
var require2 = createRequire(import.meta.url);
var VERSION = require2("../../package.json").version;
var EXIT_CODES_HELP = `
Exit codes:
  0  success                         4  authentication failed
  1  unexpected or remote failure    5  not found
  2  usage or validation error       6  conflict
  3  finished, some rows failed      130  cancelled by the user

Remote mode (every command against a premia service over HTTP):
  PREMIA_BASE_URL=http://host:8080/v1 PREMIA_API_KEY=pmk_\u2026 premia \u2026
  or once: premia login --base-url URL   (saves the profile "default")
  premia whoami shows which mode, service, profile and key are in use.`;
function commanderCode(e) {
  return e.code === "commander.invalidArgument" ? "VALIDATION_ERROR" : "USAGE_ERROR";
}
function commanderOutput(ctx, json) {
  return {
    writeOut: (s) => ctx.stdout.write(s),
    writeErr: (s) => ctx.stderr.write(s),
    outputError: (s, write) => {
      if (!json)
        write(s);
    }
  };
}
function wantsJson(argv) {
  for (const a of argv) {
    if (a === "--")
      return false;
    if (a === "--json")
      return true;
  }
  return false;
}
function buildProgram(ctx, state, json = false) {
  const program = new Command("premia");
  const output = commanderOutput(ctx, json);
  program.description("Collect monthly insurance premiums and settle with the client.").version(VERSION, "-V, --version", "print the version").helpOption("-h, --help", "show help").option("--db <path>", "store for local mode: a file, or postgres://user@host:port/db (env PREMIA_DB; default ./premia.db)").option("--json", "print exactly the API JSON body on stdout").option("-q, --quiet", "no status messages on stderr").option("--no-color", "no colour (also NO_COLOR)").option("-y, --yes", "assume yes for confirmations").addOption(new Option6("--seed <n>", "simulation seed of a new store").argParser(parseSeedOption)).option("--debug", "print diagnostics (requests, timings) on stderr").option("--base-url <url>", "remote mode: the service, including /v1 (env PREMIA_BASE_URL)").option("--profile <name>", 'remote mode: a profile saved by premia login (env PREMIA_PROFILE; default: "default" if saved)').option("--api-key <key>", "remote mode: the API key; visible to others, prefer env PREMIA_API_KEY or premia login").option("--idempotency-key <key>", "reuse this key for the writes of this command (safe reruns of a cron job)").option("--timeout <seconds>", "remote mode: longest wait for one request, retries included (env PREMIA_TIMEOUT; default 600)").option("--connect-timeout <seconds>", "remote mode: longest wait to connect (env PREMIA_CONNECT_TIMEOUT; default 10)").option("--as-client <name>", "local mode: act for this client of the store (one made by premia keys create)").exitOverride().configureOutput(output).addHelpText("after", EXIT_CODES_HELP);
  registerCommands(program, ctx, state);
  applyHelpConventions(program);
  const configure = (cmd) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(output);
      configure(sub);
    }
  };
  configure(program);
  return program;
}
function parseSeedOption(value) {
  if (!/^\d{1,9}$/.test(value))
    throw new InvalidArgumentError("the seed is a whole number from 0 to 999999999.");
  return value;
}
async function run(argv, ctx) {
  const json = wantsJson(argv);
  const state = { exitCode: ExitCode.OK, globals: json ? { json } : {} };
  try {
    const program = buildProgram(ctx, state, json);
    await program.parseAsync(argv, { from: "user" });
    return state.exitCode;
  } catch (e) {
    return reportError(ctx, state.globals, e);
  } finally {
    await ctx.dispose();
  }
}
function reportError(ctx, globals, e) {
  if (e instanceof CommanderError) {
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help")
      return ExitCode.OK;
    if (e.code === "commander.executeSubCommandAsync")
      return ExitCode.OK;
    if (globals.json)
      writeJsonError(ctx, new PremiaError(commanderCode(e), commanderMessage(e), { exitCode: ExitCode.USAGE }));
    else
      ctx.stderr.write(`  (code ${commanderCode(e)}; run with --help for usage)
`);
    return ExitCode.USAGE;
  }
  if (isUserCancel(e)) {
    if (globals.json)
      writeJsonError(ctx, new PremiaError("CANCELLED", "Cancelled by the user.", { exitCode: ExitCode.CANCELLED }));
    else
      ctx.stderr.write("Cancelled.\n");
    return ExitCode.CANCELLED;
  }
  if (e instanceof PremiaError && e.code === "CANCELLED") {
    if (globals.json)
      writeJsonError(ctx, e);
    else
      ctx.stderr.write(`${e.message}
`);
    return ExitCode.CANCELLED;
  }
  const ui = new Ui(ctx, globals);
  if (e instanceof PremiaError) {
    if (globals.json) {
      writeJsonError(ctx, e);
    } else {
      ctx.stderr.write(`${ui.err.red("error:")} ${e.message}
`);
      if (Array.isArray(e.details) && e.details.length > 1) {
        for (const d of e.details) {
          if (typeof d.message === "string")
            ctx.stderr.write(`  - ${d.row !== void 0 ? `row ${String(d.row)}: ` : ""}${d.message}
`);
        }
      }
      const tags = [`code ${e.code}`];
      if (e.requestId)
        tags.push(`request ${e.requestId}`);
      ctx.stderr.write(ui.err.dim(`  (${tags.join(", ")})
`));
    }
    if (globals.debug && e.cause)
      ctx.stderr.write(`${String(e.cause.stack ?? e.cause)}
`);
    return e.exitCode;
  }
  const err = e;
  const message = `premia failed unexpectedly: ${err?.message ?? String(e)}`;
  if (globals.json) {
    writeJsonError(ctx, new PremiaError("INTERNAL", `${message} (run again with --debug for details)`));
    if (globals.debug && err?.stack)
      ctx.stderr.write(`${err.stack}
`);
    return ExitCode.FAILURE;
  }
  ctx.stderr.write(`${ui.err.red("error:")} ${message}
`);
  if (globals.debug && err?.stack)
    ctx.stderr.write(`${err.stack}
`);
  else
    ctx.stderr.write("  (run again with --debug for details)\n");
  return ExitCode.FAILURE;
}
function writeJsonError(ctx, e) {
  ctx.stderr.write(`${stringifyJson(e.toBody(e.requestId ?? null))}
`);
}
function commanderMessage(e) {
  return e.message.replace(/^error: /, "").trim();
}
function isUserCancel(e) {
  const name = e?.name;
  return name === "ExitPromptError" || name === "AbortPromptError";
}

// dist/app/premia.js
var serve = async (backend, options, io) => (await import("../serve-WHBNHYKJ.js")).serve(backend, options, io);
async function main() {
  const ctx = createContext({
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
    serve
  });
  process.stdout.on("error", (e) => {
    if (e.code === "EPIPE")
      process.exit(0);
  });
  const code = await run(process.argv.slice(2), ctx);
  process.exitCode = code;
  const exit = () => process.exit(code);
  if (process.stdout.writableNeedDrain)
    process.stdout.once("drain", exit);
  else
    setImmediate(exit);
}
export {
  main
};

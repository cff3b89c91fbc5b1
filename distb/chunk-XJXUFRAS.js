// dist/cli/fixtures.js
import { fileURLToPath } from "node:url";
import { join } from "node:path";
var FIXTURES_DIR = fileURLToPath(new URL("../../fixtures/", import.meta.url));
var FIXTURE_FILES = ["policies.csv", "bank-transactions.csv", "policies-invalid.csv"];
var fixturePath = (name) => join(FIXTURES_DIR, name);

export {
  FIXTURE_FILES,
  fixturePath
};

import {
  pgBankStore,
  readPgCustomerBankInputs,
  withPgBankImport
} from "./chunk-MFYXJBV4.js";
import "./chunk-KIJGBPVL.js";
import "./chunk-CXYRJJKB.js";
export {
  pgBankStore,
  readPgCustomerBankInputs,
  withPgBankImport
};

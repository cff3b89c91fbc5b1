import {
  PATTERN_CUSTOMER_LIMIT,
  readSummary,
  share
} from "./chunk-DYOQJKF5.js";
import "./chunk-KZMX44YV.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-U6UK7MPY.js";
export {
  PATTERN_CUSTOMER_LIMIT,
  readSummary,
  share
};

import {
  DEFAULT_CONNECT_TIMEOUT_S,
  DEFAULT_POOL_SIZE,
  MARKER_TABLE,
  WRITER_LOCK,
  idSyncSql,
  openPgStore,
  pgError,
  pgPlaceholders,
  pgSettings
} from "./chunk-Z3CTVQDO.js";
import "./chunk-7L3A4ARV.js";
import "./chunk-U6UK7MPY.js";
export {
  DEFAULT_CONNECT_TIMEOUT_S,
  DEFAULT_POOL_SIZE,
  MARKER_TABLE,
  WRITER_LOCK,
  idSyncSql,
  openPgStore,
  pgError,
  pgPlaceholders,
  pgSettings
};

import {
  LocalBackend,
  copyStore,
  openLocalBackend
} from "./chunk-UZFRA4BN.js";
import "./chunk-KZMX44YV.js";
import "./chunk-QFVJLG6N.js";
import "./chunk-V3ZTTVYI.js";
import "./chunk-HUXLOL7T.js";
import "./chunk-IVFONV4X.js";
import "./chunk-MRLEVLPO.js";
import "./chunk-F6XEBFEX.js";
import "./chunk-LWLCY3JA.js";
import "./chunk-K26TIJNB.js";
import "./chunk-Z3CTVQDO.js";
import "./chunk-7L3A4ARV.js";
import "./chunk-MFYXJBV4.js";
import "./chunk-KIJGBPVL.js";
import "./chunk-FKNU4UUY.js";
import "./chunk-CXYRJJKB.js";
import "./chunk-MHVTT2HV.js";
import "./chunk-JX2JAKWC.js";
import "./chunk-7BKCKV6J.js";
import "./chunk-U6UK7MPY.js";
export {
  LocalBackend,
  copyStore,
  openLocalBackend
};

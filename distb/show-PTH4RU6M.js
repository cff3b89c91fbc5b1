import {
  showClock,
  showRun,
  show_default
} from "./chunk-CESH2GXY.js";
import "./chunk-ZHXFIFOW.js";
export {
  show_default as default,
  showClock,
  showRun
};

// dist/lib/csv-reader.js
var CsvFormatError = class extends Error {
  reason;
  line;
  constructor(reason, line, message) {
    super(message);
    this.reason = reason;
    this.line = line;
    this.name = "CsvFormatError";
  }
};
var QUOTE = 34;
var COMMA = 44;
var LF = 10;
var CR = 13;
var NEED_MORE = -1;
var CsvReader = class {
  onRecord;
  onPlainLine;
  maxRecordLength;
  decoder = new TextDecoder("utf-8", { fatal: true });
  // strips a leading BOM
  buf = "";
  lineNo = 1;
  started = false;
  /** Characters consumed so far (for progress). */
  bytesIn = 0;
  constructor(options) {
    this.onRecord = options.onRecord;
    this.onPlainLine = options.onPlainLine;
    this.maxRecordLength = options.maxRecordLength ?? 1 << 20;
  }
  /** The line number the next record would start on. */
  get line() {
    return this.lineNo;
  }
  push(chunk) {
    let text;
    if (typeof chunk === "string") {
      text = chunk;
      this.bytesIn += Buffer.byteLength(chunk);
    } else {
      this.bytesIn += chunk.byteLength;
      try {
        text = this.decoder.decode(chunk, { stream: true });
      } catch {
        const at = this.lineNo + countNewlines(this.buf, 0) + newlinesBeforeInvalidUtf8(chunk);
        throw new CsvFormatError("ENCODING", at, `line ${at}: the file is not UTF-8 text (binary content?)`);
      }
    }
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 65279)
        text = text.slice(1);
    }
    if (text.indexOf("\0") !== -1) {
      const at = this.lineNo + countNewlines(this.buf + text.slice(0, text.indexOf("\0")), 0);
      throw new CsvFormatError("BINARY", at, `line ${at}: the file contains NUL bytes; it is binary, not CSV text`);
    }
    this.buf = this.buf.length === 0 ? text : this.buf + text;
    this.parse(false);
  }
  end() {
    let rest;
    try {
      rest = this.decoder.decode();
    } catch {
      const at = this.lineNo + countNewlines(this.buf, 0);
      throw new CsvFormatError("ENCODING", at, `line ${at}: the file ends inside a UTF-8 character (binary content?)`);
    }
    if (rest)
      this.push(rest);
    this.parse(true);
  }
  parse(final) {
    const buf = this.buf;
    const n = buf.length;
    let pos = 0;
    let nextQuote = -2;
    while (pos < n) {
      if (nextQuote !== -1 && nextQuote < pos)
        nextQuote = buf.indexOf('"', pos);
      let nl = buf.indexOf("\n", pos);
      if (nl === -1) {
        if (!final) {
          this.checkPending(buf, pos);
          break;
        }
        nl = n;
      }
      if (nextQuote === -1 || nextQuote >= nl) {
        let end = nl;
        if (end > pos && buf.charCodeAt(end - 1) === CR)
          end--;
        if (end > pos) {
          if (end - pos > this.maxRecordLength)
            this.tooLong();
          const line = buf.slice(pos, end);
          if (this.onPlainLine === void 0 || !this.onPlainLine(line, this.lineNo))
            this.onRecord(line.split(","), this.lineNo, null);
        }
        this.lineNo++;
        pos = nl + 1;
        continue;
      }
      const next = this.parseQuotedRecord(buf, pos, final);
      if (next === NEED_MORE) {
        this.checkPending(buf, pos);
        break;
      }
      pos = next;
      nextQuote = -2;
    }
    this.buf = pos >= n ? "" : buf.slice(pos);
  }
  /** Parse one record that contains a quote. Returns the position after it, or NEED_MORE. */
  parseQuotedRecord(buf, start, final) {
    const n = buf.length;
    const fields = [];
    let problem = null;
    let newlines = 0;
    let i = start;
    for (; ; ) {
      let value;
      if (i < n && buf.charCodeAt(i) === QUOTE) {
        let segStart = i + 1;
        let j = segStart;
        value = "";
        for (; ; ) {
          const q = buf.indexOf('"', j);
          if (q === -1) {
            if (!final)
              return NEED_MORE;
            throw new CsvFormatError("UNCLOSED_QUOTE", this.lineNo, `line ${this.lineNo}: a quoted field opened here is never closed`);
          }
          if (q + 1 >= n && !final)
            return NEED_MORE;
          if (buf.charCodeAt(q + 1) === QUOTE) {
            value += buf.slice(segStart, q + 1);
            j = q + 2;
            segStart = j;
            continue;
          }
          value += buf.slice(segStart, q);
          i = q + 1;
          break;
        }
        newlines += countNewlines(value, 0);
        let k = i;
        while (k < n) {
          const c2 = buf.charCodeAt(k);
          if (c2 === COMMA || c2 === LF)
            break;
          k++;
        }
        if (k >= n && !final)
          return NEED_MORE;
        if (k > i) {
          const junk = buf.slice(i, k);
          if (!(junk === "\r" && k < n)) {
            problem ??= `unexpected text after a closing quote: ${JSON.stringify(junk.slice(0, 20))}`;
            value += junk.endsWith("\r") && k < n ? junk.slice(0, -1) : junk;
          }
        }
        i = k;
      } else {
        let k = i;
        while (k < n) {
          const c2 = buf.charCodeAt(k);
          if (c2 === COMMA || c2 === LF)
            break;
          k++;
        }
        if (k >= n && !final)
          return NEED_MORE;
        let end2 = k;
        if (k < n && buf.charCodeAt(k) === LF && end2 > i && buf.charCodeAt(end2 - 1) === CR)
          end2--;
        value = buf.slice(i, end2);
        i = k;
      }
      fields.push(value);
      if (i >= n)
        break;
      const c = buf.charCodeAt(i);
      i++;
      if (c === LF)
        break;
      if (i >= n) {
        if (!final)
          return NEED_MORE;
        fields.push("");
        break;
      }
    }
    let end = i;
    if (end > start && buf.charCodeAt(end - 1) === LF) {
      end--;
      if (end > start && buf.charCodeAt(end - 1) === CR)
        end--;
    }
    if (end - start > this.maxRecordLength)
      this.tooLong();
    const line = this.lineNo;
    this.lineNo += 1 + newlines;
    this.onRecord(fields, line, problem);
    return i;
  }
  /**
   * The unfinished record at buf[pos..] is already over the limit. A trailing CR may be the
   * first half of a CRLF line end, so it does not count yet.
   */
  checkPending(buf, pos) {
    let length = buf.length - pos;
    if (length > 0 && buf.charCodeAt(buf.length - 1) === CR)
      length--;
    if (length > this.maxRecordLength)
      this.tooLong();
  }
  tooLong() {
    throw new CsvFormatError("RECORD_TOO_LONG", this.lineNo, `line ${this.lineNo}: the record starting here is longer than ${this.maxRecordLength} characters (a quote left open?)`);
  }
};
function countNewlines(s, from) {
  let count = 0;
  let i = s.indexOf("\n", from);
  while (i !== -1) {
    count++;
    i = s.indexOf("\n", i + 1);
  }
  return count;
}
function newlinesBeforeInvalidUtf8(chunk) {
  let start = 0;
  while (start < 3 && start < chunk.length && (chunk[start] & 192) === 128)
    start++;
  const refused = (end) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(chunk.subarray(start, end), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  let bad = start;
  if (refused(chunk.length)) {
    let lo = start + 1;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = lo + hi >>> 1;
      if (refused(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    bad = lo - 1;
  }
  let count = 0;
  for (let i = 0; i < bad; i++)
    if (chunk[i] === LF)
      count++;
  return count;
}
function trimCell(s) {
  const n = s.length;
  if (n === 0)
    return s;
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(n - 1);
  if (a > 32 && b > 32 && a !== 160 && b !== 160)
    return s;
  return s.trim();
}
var CR_LINE_ENDS = "The file's lines end with a carriage return alone (the old Mac format), which CSV does not take as a line end; save it with LF or CRLF line ends.";
function bareCrHint(fields) {
  return fields.some((f) => f.includes("\r")) ? " (the line holds carriage returns: lines ended by CR alone ran together; save the file with LF or CRLF line ends)" : "";
}

export {
  CsvFormatError,
  CsvReader,
  trimCell,
  CR_LINE_ENDS,
  bareCrHint
};

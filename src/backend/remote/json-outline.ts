/**
 * The outline of a JSON report read as it streams by (it is passed on as it comes, never held
 * whole): the members of its top-level object and of the objects directly inside it (a
 * `pagination`, `meta` or `links` object), and the number of elements of its `results` array.
 * That is where a server that pages its answer says so, in whatever words it chose; the rows
 * themselves (deeper) are not looked into, so a row's own field (`next_attempt_date`) is no sign.
 */
import { StringDecoder } from 'node:string_decoder';

/** One member with a value: `within` is the top-level member it sits in (null: the top level). */
export interface OutlineField {
  within: string | null;
  key: string;
  /** A primitive's value; an object or array is `{}` (it is there). */
  value: string | number | boolean | null | object;
}

interface Frame {
  array: boolean;
  /** The member of the parent object this container is the value of (null: none). */
  key: string | null;
  /** An object awaiting a member's name. */
  expectKey: boolean;
  /** An object's member whose value is being read. */
  member: string | null;
}

const MAX_TEXT = 256;
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const DELIMITERS = new Set([...WHITESPACE, ',', ':', '}', ']']);
const DEEP = /["{}[\]]/g;
const STRING_STOP = /["\\]/g;

export class JsonOutline {
  readonly fields: OutlineField[] = [];
  /** Elements of the top-level object's `results` array. */
  results = 0;
  /** Whether the top level is an object whose `results` is an array (spec 4.6's report). */
  resultsArray = false;
  /** Whether it ends inside a container or a string (a body cut off after a row's own `}`). */
  get open(): boolean {
    return this.stack.length > 0 || this.inString;
  }
  private readonly stack: Frame[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private inString = false;
  private escaped = false;
  private isKey = false;
  private text = '';
  private literal: string | null = null;

  write(chunk: Buffer): void {
    const text = this.decoder.write(chunk);
    for (let i = 0; i < text.length; i++) {
      // Deep inside (a row), a string is passed over whole: only its end matters.
      if (this.inString && !this.escaped && this.stack.length > 2) {
        STRING_STOP.lastIndex = i;
        const stop = STRING_STOP.exec(text);
        if (stop === null) return;
        i = stop.index;
      } else if (!this.inString && this.literal === null && this.stack.length > 2) {
        // Deep inside, between strings: only brackets and quotes matter.
        DEEP.lastIndex = i;
        const next = DEEP.exec(text);
        if (next === null) return;
        i = next.index;
      }
      this.step(text[i]!);
    }
  }

  /** Where a value that starts now would be recorded (depth 1 or 2 of objects), or undefined. */
  private slot(): { within: string | null; key: string } | undefined {
    const depth = this.stack.length;
    const top = this.stack[depth - 1];
    if (!top || top.array || top.member === null || depth > 2 || this.stack[0]!.array) return undefined;
    return { within: depth === 1 ? null : top.key, key: top.member };
  }

  private record(value: OutlineField['value']): void {
    const slot = this.slot();
    if (slot && this.fields.length < 1000) this.fields.push({ ...slot, value });
  }

  /** A value begins: an element of the results array is counted. */
  private beginValue(): void {
    const [root, inner] = this.stack;
    if (this.stack.length === 2 && root && !root.array && inner!.array && inner!.key === 'results') this.results++;
  }

  private endLiteral(): void {
    const t = this.literal!;
    this.literal = null;
    this.record(t === 'true' ? true : t === 'false' ? false : t === 'null' ? null : Number(t));
  }

  private step(ch: string): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (ch === '\\') this.escaped = true;
      else if (ch === '"') {
        this.inString = false;
        const top = this.stack[this.stack.length - 1];
        if (this.isKey) {
          top!.member = this.text;
          top!.expectKey = false;
        } else this.record(this.text);
        return;
      }
      if (this.text.length < MAX_TEXT) this.text += ch;
      return;
    }
    if (this.literal !== null) {
      if (!DELIMITERS.has(ch)) {
        if (this.literal.length < MAX_TEXT) this.literal += ch;
        return;
      }
      this.endLiteral();
    }
    if (WHITESPACE.has(ch)) return;
    const top = this.stack[this.stack.length - 1];
    switch (ch) {
      case '"':
        this.inString = true;
        this.escaped = false;
        this.text = '';
        this.isKey = top !== undefined && !top.array && top.expectKey;
        if (!this.isKey) this.beginValue();
        return;
      case '{':
      case '[':
        this.beginValue();
        if (this.slot()) this.record({});
        if (ch === '[' && this.stack.length === 1 && !top!.array && top!.member === 'results') this.resultsArray = true;
        this.stack.push({ array: ch === '[', key: top && !top.array ? top.member : null, expectKey: ch === '{', member: null });
        return;
      case '}':
      case ']':
        this.stack.pop();
        return;
      case ',':
        if (top && !top.array) {
          top.expectKey = true;
          top.member = null;
        }
        return;
      case ':':
        return;
      default:
        if (this.stack.length > 2) return; // a number or word deep inside: never recorded
        this.beginValue();
        this.literal = ch;
    }
  }
}

const norm = (key: string) => key.toLowerCase().replace(/[_-]/g, '');
const named = (f: OutlineField) => (f.within === null ? f.key : `${f.within}.${f.key}`);
/** Members that say whether more pages follow (true / false). */
const MORE = new Set(['hasmore', 'hasnext', 'hasnextpage', 'more', 'moreresults']);
/** Members that point to the next page (a cursor, a URL, a page number) when they hold anything. */
const NEXT = new Set(['next', 'nextcursor', 'nextpage', 'nextpagetoken', 'nexttoken', 'nexturl', 'nextlink', 'nextoffset', 'nextpageurl', 'nextpagecursor', 'nexthref']);
/** Members that count every result, of all pages. */
const TOTAL = new Set(['totalcount', 'totalresults', 'totalitems', 'totalrecords', 'totalrows', 'totalelements']);
const TOTAL_PAGES = new Set(['totalpages', 'pagecount', 'pages', 'numpages', 'lastpage']);
const PAGE = new Set(['page', 'currentpage', 'pagenumber', 'pageno']);
/** A container of paging members, where `total` and `count` count results (elsewhere `total` may be money). */
const pagingContainer = (within: string | null) => within !== null && /pag|meta/i.test(within);

/**
 * Why the outlined report is one page of a longer answer, or null: a has_more of true, a next
 * pointer that holds something (without a has_more of false beside it), a count of all results
 * beyond the results it carries, or a page before the last of its pages.
 */
export function pagedAnswer(outline: JsonOutline): string | null {
  const fields = outline.fields;
  const more = fields.filter((f) => MORE.has(norm(f.key)));
  if (more.some((f) => f.value === true)) return 'has_more / a next cursor';
  const next = fields.find((f) => NEXT.has(norm(f.key)) && f.value !== null && f.value !== false && f.value !== '');
  if (next && !more.some((f) => f.value === false)) return 'has_more / a next cursor';
  const whole = (v: OutlineField['value']): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  for (const f of fields) {
    const k = norm(f.key);
    // `count` beside the results (Django REST framework's pages) counts them all; `total` may be money there.
    const counts = TOTAL.has(k) || (k === 'count' && f.within === null) || ((k === 'total' || k === 'count') && pagingContainer(f.within));
    if (counts && whole(f.value) && f.value > outline.results) {
      return `${outline.results} of the ${f.value} results its ${named(f)} counts`;
    }
  }
  const containers = new Set(fields.map((f) => f.within));
  for (const within of containers) {
    const here = fields.filter((f) => f.within === within);
    const pages = here.find((f) => TOTAL_PAGES.has(norm(f.key)) && whole(f.value));
    const page = here.find((f) => PAGE.has(norm(f.key)) && whole(f.value));
    const [at, of] = [page?.value, pages?.value];
    if (pages && typeof at === 'number' && typeof of === 'number' && at < of) return `page ${at} of ${of}, by its ${named(pages)}`;
  }
  return null;
}

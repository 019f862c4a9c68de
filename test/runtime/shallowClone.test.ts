import { describe, expect, it } from "vitest";
import { shallowClone } from "../../src/runtime/shallowClone.js";

class Point {
  x = 1;
  y = 2;
  label?: string;
  norm(): number {
    return Math.hypot(this.x, this.y);
  }
}

describe("shallowClone", () => {
  it("copies own properties and keeps the prototype, as a spread onto the prototype would", () => {
    const source = new Point();
    source.x = 3;
    source.y = 4;
    const copy = shallowClone(source);
    expect(copy).not.toBe(source);
    expect(copy).toBeInstanceOf(Point);
    expect(copy.norm()).toBe(5);
    expect(Object.keys(copy)).toEqual(Object.keys(source));
    expect({ ...copy }).toEqual({ ...source });
    copy.x = 0;
    expect(source.x).toBe(3);
  });

  it("copies properties added to the source after an earlier copy, and drops none", () => {
    const source = new Point();
    expect(Object.keys(shallowClone(source))).toEqual(["x", "y", "label"]);
    Object.assign(source, { extra: "later" });
    const copy = shallowClone(source) as Point & { extra?: string };
    expect(copy.extra).toBe("later");
    expect(Object.keys(copy)).toEqual(["x", "y", "label", "extra"]);
  });

  it("copies objects of one shape, keys that are not identifiers, and symbol-keyed properties", () => {
    const odd = { "a-b": 1, 'quote"d': 2, "new\nline": 3 };
    expect(shallowClone(odd)).toEqual(odd);
    const tag = Symbol("tag");
    const tagged = { a: 1, [tag]: "t" };
    const copy = shallowClone(tagged);
    expect(copy[tag]).toBe("t");
    expect(copy.a).toBe(1);
    const many = Array.from({ length: 5 }, (_, i) => Object.assign(new Point(), { x: i }));
    expect(many.map((p) => shallowClone(p).x)).toEqual([0, 1, 2, 3, 4]);
  });
});

/**
 * What a task handler threw, as it crosses ranks: the cause a submitter sees is what the handler
 * threw, whichever rank ran it. Errors keep their class when it is one of JavaScript's own
 * (RangeError, TypeError ...), their name, message, stack, own properties (`code` ...) and cause;
 * any other value (a plain object, a string, a number) travels as structured clone carries it.
 * msgpackr's structured clone alone keeps built-in error classes but drops own properties and
 * turns a program's Error subclass into a plain Error: this form keeps both.
 */
import { encodeValue } from '../comm/codec.js';

const THROWN = '__tsmpiThrown';

/** The wire form of a thrown value (a plain object, tagged so it is not mistaken for a value). */
export interface WireThrown {
  readonly [THROWN]: 'error' | 'value';
  readonly name?: string;
  readonly message?: string;
  readonly stack?: string;
  readonly props?: Record<string, unknown>;
  readonly cause?: WireThrown;
  readonly value?: unknown;
}

const BUILTIN: Record<string, ErrorConstructor> = { Error, RangeError, TypeError, SyntaxError, ReferenceError, EvalError, URIError };

/** A value that can be sent, or its text when it cannot (a function, a symbol ...). */
function sendable(value: unknown): unknown {
  try {
    encodeValue(value, -1, 'task error');
    return value;
  } catch {
    return String(value);
  }
}

/** The wire form of `thrown`. */
export function thrownToWire(thrown: unknown): WireThrown {
  if (thrown instanceof Error) {
    const props: Record<string, unknown> = {};
    for (const key of Object.keys(thrown)) props[key] = (thrown as unknown as Record<string, unknown>)[key];
    const cause = (thrown as { cause?: unknown }).cause;
    return {
      [THROWN]: 'error',
      name: thrown.name,
      message: thrown.message,
      ...(thrown.stack !== undefined && { stack: thrown.stack }),
      ...(Object.keys(props).length > 0 && { props: sendable(props) as Record<string, unknown> }),
      ...(cause !== undefined && { cause: thrownToWire(cause) }),
    };
  }
  return { [THROWN]: 'value', value: sendable(thrown) };
}

/** True for the wire form of a thrown value. */
export function isWireThrown(value: unknown): value is WireThrown {
  return typeof value === 'object' && value !== null && THROWN in value;
}

/** The value the handler threw, rebuilt from its wire form. */
export function thrownFromWire(wire: WireThrown): unknown {
  if (wire[THROWN] === 'value') return wire.value;
  const Ctor = BUILTIN[wire.name ?? 'Error'] ?? Error;
  const error = new Ctor(wire.message ?? '');
  if (error.name !== wire.name) Object.defineProperty(error, 'name', { value: wire.name, writable: true, configurable: true, enumerable: false });
  if (wire.stack !== undefined) error.stack = wire.stack;
  if (wire.props !== undefined && typeof wire.props === 'object') Object.assign(error, wire.props);
  if (wire.cause !== undefined) Object.defineProperty(error, 'cause', { value: thrownFromWire(wire.cause), writable: true, configurable: true, enumerable: false });
  return error;
}

/// <reference path="./undici-paths.d.ts" />
/**
 * The part of undici envroll uses: Pool (the SGLang transport, the engine's router), Agent (the
 * eval client) and the error classes. undici's entry module loads every dispatcher, fetch,
 * WebSocket, the cache and mock layers — 111 modules, about three times the start-up cost of
 * these 25 — so they are imported by path. `Pool.prototype.request` is the `request` API that
 * the entry installs on every dispatcher; it is installed here the same way (the entry's own
 * assignment, should something else load it, is the same function).
 */
import type * as Undici from "undici";
import request from "undici/lib/api/api-request.js";
import undiciErrors from "undici/lib/core/errors.js";
import AgentClass from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import PoolClass from "undici/lib/dispatcher/pool.js";

if (typeof Dispatcher.prototype.request !== "function") Dispatcher.prototype.request = request;

export const Pool = PoolClass;
export type Pool = Undici.Pool;
export const Agent = AgentClass;
export type Agent = Undici.Agent;
export const errors = undiciErrors;

// Types of the undici modules that ./undici.ts imports by path (undici types only its entry).
declare module "undici/lib/dispatcher/agent.js" {
  const Agent: typeof import("undici").Agent;
  export default Agent;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  const Dispatcher: typeof import("undici").Dispatcher;
  export default Dispatcher;
}
declare module "undici/lib/dispatcher/pool.js" {
  const Pool: typeof import("undici").Pool;
  export default Pool;
}
declare module "undici/lib/api/api-request.js" {
  const request: import("undici").Dispatcher["request"];
  export default request;
}
declare module "undici/lib/core/errors.js" {
  const errors: typeof import("undici").errors;
  export default errors;
}

/**
 * {@code polyhe serve}: private inference over HTTP ({@link PolyHeServer}) with tenants by bearer token, TLS, key
 * uploads checked before they are kept, a bounded job queue, per-tenant quotas and an audit log; and
 * {@link RemoteClient}, the client {@code polyhe remote} uses. docs/serving.md has the routes, the limits and the
 * threat model.
 */
package dev.polyhe.server;

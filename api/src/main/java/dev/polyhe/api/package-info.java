/**
 * The stable API a plugin is written against, and nothing else: the plugin contract ({@link PolyHePlugin}, every
 * plugin's name, description and API version), the dense {@link Matrix} the models and engines exchange, and
 * {@link Options}, a plugin's typed options. The four service interfaces live in the sub-packages: attention
 * mechanisms ({@code attention}), polynomial approximators ({@code approx}), HE backends ({@code he}) and model
 * architectures ({@code model}); {@code arith} is the arithmetic the same model code runs on in plaintext and
 * encrypted. This module has no dependency: a third-party plugin builds against its jar alone.
 */
package dev.polyhe.api;

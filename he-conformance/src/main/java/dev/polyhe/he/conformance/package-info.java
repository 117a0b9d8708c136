/**
 * The conformance kits an HE backend passes to be used by the engines: {@link HeBackendConformanceTest}
 * (encoding, encryption, every evaluator operation, serialization, the errors a user must get) and
 * {@link BootstrappingConformanceTest} (levels, slots, scales and precision after bootstrapping). A backend's tests
 * subclass them with its parameters and promises.
 */
package dev.polyhe.he.conformance;

package dev.polyhe.batch;

import java.io.Serializable;

/**
 * One query as the driver hands it to a task. Paths are strings (a {@link java.nio.file.Path} does not serialize)
 * and must name shared storage that every executor sees at the same place.
 *
 * @param name the query file's name, which names its result and its row of the report
 * @param keyFolder the server half of the key set the query was encrypted under
 * @param backend the HE backend of that key set (the query's header names it), read once by the driver
 * @param output where the encrypted answer goes
 */
record QuerySpec(String name, String query, String keyFolder, String backend, String output) implements Serializable {}

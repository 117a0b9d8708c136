package dev.polyhe.batch;

/** Bad input to a batch (options, folders, a query no key set fits): reported in one line, exit code 2 or per query. */
final class BatchInputException extends RuntimeException {
    BatchInputException(String message) {
        super(message);
    }
}

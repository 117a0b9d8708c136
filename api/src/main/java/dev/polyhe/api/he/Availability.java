package dev.polyhe.api.he;

/** Whether a backend can run on this machine, and if not, why. */
public record Availability(boolean available, String reason) {
    public static Availability yes() {
        return new Availability(true, "available");
    }

    public static Availability no(String reason) {
        return new Availability(false, reason);
    }
}

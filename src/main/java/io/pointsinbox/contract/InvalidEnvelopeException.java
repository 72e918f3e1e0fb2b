package io.pointsinbox.contract;

/** A message that can never be applied, whatever the retries: it names the offending field and why. */
public class InvalidEnvelopeException extends RuntimeException {

    private final String field;

    public InvalidEnvelopeException(String field, String reason) {
        super(field + ": " + reason, null, false, false);
        this.field = field;
    }

    public String field() {
        return field;
    }
}

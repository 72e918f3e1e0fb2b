package io.pointsinbox.contract;

/**
 * The content codings a body may declare (AMQP {@code content-encoding}, HTTP {@code Content-Encoding}): the service
 * reads none, the bytes are the JSON itself. {@code identity} is no coding, and a character set ({@code utf-8}),
 * which some clients declare there, is not one either: neither changes how the body is read.
 */
public final class ContentCodings {

    private static final int SHOWN = 40;

    private ContentCodings() {
    }

    /** Whether the declared coding says the bytes are transformed (compressed, for instance), so not readable here. */
    public static boolean transformsTheBody(String declared) {
        if (declared == null || declared.isBlank()) {
            return false;
        }
        String coding = declared.strip();
        return !coding.equalsIgnoreCase("identity") && !coding.equalsIgnoreCase("utf-8")
                && !coding.equalsIgnoreCase("utf8");
    }

    /** Why a body with this declared coding is not read, quoting it trimmed, escaped and at most 40 characters. */
    public static String notSupported(String declared) {
        return Shown.text(declared.strip(), SHOWN) + " is not supported; send the JSON uncompressed";
    }
}

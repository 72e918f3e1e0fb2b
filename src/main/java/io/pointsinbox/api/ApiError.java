package io.pointsinbox.api;

/** The JSON body of every 4xx: which field is wrong and why. */
public record ApiError(String error, String field, String message) {
}

package dev.unread.api;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Content-Security-Policy of the inbox page: the page's own inline script and style, named by
 * their SHA-256 as the page holds them, and requests to this API only. Computed from the page
 * itself, so an edit of the page cannot leave the policy behind; a script injected into the page
 * (or a page that frames it) does not run.
 */
final class InboxPolicy {

    private static final Pattern SCRIPT = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL);
    private static final Pattern STYLE = Pattern.compile("<style>(.*?)</style>", Pattern.DOTALL);

    private InboxPolicy() {}

    static String of(String page) {
        return "default-src 'none'; script-src "
                + hashes(SCRIPT, page)
                + "; style-src "
                + hashes(STYLE, page)
                + "; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none';"
                + " frame-ancestors 'none'";
    }

    private static String hashes(Pattern element, String page) {
        List<String> sources = new ArrayList<>();
        Matcher matcher = element.matcher(page);
        while (matcher.find()) {
            sources.add(
                    "'sha256-"
                            + Base64.getEncoder().encodeToString(Auth.sha256(matcher.group(1)))
                            + "'");
        }
        return sources.isEmpty() ? "'none'" : String.join(" ", sources);
    }
}

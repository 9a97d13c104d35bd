package dev.bulwark.cli.internal.report;

/** Escaping for text and attribute values written into the HTML reports (the CLI's and the lab's). */
public final class Html {

    private Html() {
    }

    /**
     * Escapes {@code & < > " '} so that any text is safe inside an element or a quoted attribute.
     *
     * @param text the text
     * @return the escaped text
     */
    public static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&':
                    escaped.append("&amp;");
                    break;
                case '<':
                    escaped.append("&lt;");
                    break;
                case '>':
                    escaped.append("&gt;");
                    break;
                case '"':
                    escaped.append("&quot;");
                    break;
                case '\'':
                    escaped.append("&#39;");
                    break;
                default:
                    escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
